-- The turn columns of an assistant message (turn_id, turn_number, turn_fired, migration
-- 0002) are written by the commit that inserts the message with its turn, in the same
-- INSERT, instead of by a trigger that updated the row just inserted (a second write of
-- a 2 KB row every turn). A turn whose assistant message was stored before (an import, a
-- turn recorded later) still updates the message, from Go; as before, when several turns
-- name one message, the last inserted wins.
DROP TRIGGER turns_on_messages;

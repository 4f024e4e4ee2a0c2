-- The light record of each assistant message's turn (id, number, fired reminders), kept on
-- the message row, so opening a chat reads its path and the turns' counters in one walk
-- without joining or scanning the turns table. A trigger keeps it up to date; when an
-- import holds several turns for one message, the last inserted wins.
ALTER TABLE messages ADD COLUMN turn_id TEXT;
ALTER TABLE messages ADD COLUMN turn_number INTEGER;
ALTER TABLE messages ADD COLUMN turn_fired TEXT;

UPDATE messages SET (turn_id, turn_number, turn_fired) = (
    SELECT t.id, t.number, t.fired FROM turns t
    WHERE t.chat_id = messages.chat_id AND t.assistant_message_id = messages.id
    ORDER BY t.pk DESC LIMIT 1)
WHERE role = 'assistant';

CREATE TRIGGER turns_on_messages AFTER INSERT ON turns
WHEN NEW.assistant_message_id IS NOT NULL
BEGIN
    UPDATE messages SET turn_id = NEW.id, turn_number = NEW.number, turn_fired = NEW.fired
    WHERE chat_id = NEW.chat_id AND id = NEW.assistant_message_id;
END;

-- Runs: a message whose parent is the message inserted just before it (parent_pk = pk - 1)
-- continues its parent's run; every other message starts one. A path is then a few runs of
-- consecutive pks, each read with one range scan of the table instead of one lookup per
-- message. This index holds the run starts: the run of a message begins at the greatest
-- start whose pk is not greater than its own.
CREATE INDEX messages_run_starts ON messages (pk) WHERE parent_pk IS NULL OR parent_pk <> pk - 1;

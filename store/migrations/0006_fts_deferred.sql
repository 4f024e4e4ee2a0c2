-- The full-text index is no longer written by each commit (a commit of two messages wrote
-- a new FTS5 segment, its structure record and the documents' sizes: about a quarter of
-- the pages a turn's commit wrote). Messages are indexed in batches instead (fts.go):
-- every message whose pk is at most indexed_pk is in messages_fts; the ones above it are
-- indexed by the next search, or by the commit that finds enough of them waiting. Every
-- message stored before this migration is indexed.
CREATE TABLE fts_state (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_pk INTEGER NOT NULL
) STRICT;

INSERT INTO fts_state (id, indexed_pk) VALUES (1, (SELECT coalesce(max(pk), 0) FROM messages));

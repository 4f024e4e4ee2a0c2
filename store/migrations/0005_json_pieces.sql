-- Pieces of turns' decision lists stored once (see pieces.go): the predicate expressions,
-- reminder texts and the JSON between them that every turn repeats. A decision list whose
-- first byte is 0x01 is packed: each 0x02 ID 0x03 in it (ID in decimal) stands for the
-- text of the piece ID. Other rows hold the list as it is, as before this migration.
-- Pieces are shared by every chat, never changed and never deleted, so a process may keep
-- them in memory.
CREATE TABLE json_pieces (
    id   INTEGER PRIMARY KEY,
    text TEXT NOT NULL UNIQUE
) STRICT;

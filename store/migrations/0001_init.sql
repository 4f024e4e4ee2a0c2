-- ctxlab schema version 1: chats as a message graph.
-- Times are UTC text in a fixed-width RFC 3339 form (2006-01-02T15:04:05.000000000Z), so they
-- sort as text. Ids are scoped by chat: (chat_id, id) is unique, not id alone.

PRAGMA application_id = 1668577388; -- "ctxl", checked by Open

CREATE TABLE chats (
    id                TEXT NOT NULL PRIMARY KEY,
    title             TEXT NOT NULL,
    metadata          TEXT,              -- JSON object, NULL when none
    active_branch     TEXT NOT NULL,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    message_count     INTEGER NOT NULL DEFAULT 0,
    -- sum over every turn of the chat of Turn.Counted(), maintained by each commit
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    total_tokens      INTEGER NOT NULL DEFAULT 0,
    cached_tokens     INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens  INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (id, active_branch) REFERENCES branches (chat_id, name) DEFERRABLE INITIALLY DEFERRED
) STRICT;

CREATE INDEX chats_updated ON chats (updated_at DESC, id);

CREATE TABLE messages (
    pk          INTEGER PRIMARY KEY,     -- insertion order; rowid of the FTS row
    chat_id     TEXT NOT NULL REFERENCES chats (id),
    id          TEXT NOT NULL,
    parent_id   TEXT,                    -- NULL for a root
    parent_pk   INTEGER,                 -- pk of the parent: path walks follow rowids
    depth       INTEGER NOT NULL,        -- number of ancestors
    user_turns  INTEGER NOT NULL,        -- user messages on the path root..this, inclusive
    role        TEXT NOT NULL,
    parts       TEXT NOT NULL,           -- JSON array of chat.Part
    locale      TEXT,                    -- JSON chat.Locale
    reminders   TEXT,                    -- JSON array of chat.ReminderSpan
    interrupted INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    UNIQUE (chat_id, id),
    FOREIGN KEY (chat_id, parent_id) REFERENCES messages (chat_id, id)
) STRICT;

CREATE INDEX messages_children ON messages (chat_id, parent_id);

CREATE TABLE branches (
    chat_id    TEXT NOT NULL REFERENCES chats (id),
    name       TEXT NOT NULL,
    head       TEXT,                     -- NULL: a branch with no message yet
    parent     TEXT,                     -- the branch it was made from
    created_at TEXT NOT NULL,
    PRIMARY KEY (chat_id, name),
    FOREIGN KEY (chat_id, head) REFERENCES messages (chat_id, id)
) STRICT;

CREATE TABLE checkpoints (
    chat_id    TEXT NOT NULL REFERENCES chats (id),
    name       TEXT NOT NULL,
    message_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (chat_id, name),
    FOREIGN KEY (chat_id, message_id) REFERENCES messages (chat_id, id)
) STRICT;

CREATE TABLE turns (
    pk                   INTEGER PRIMARY KEY,
    chat_id              TEXT NOT NULL REFERENCES chats (id),
    id                   TEXT NOT NULL,
    branch               TEXT NOT NULL,
    number               INTEGER NOT NULL,
    user_message_id      TEXT,
    assistant_message_id TEXT,
    at                   TEXT NOT NULL,
    request              TEXT NOT NULL,  -- JSON chat.SentRequest
    fired                TEXT,           -- JSON array of chat.Fired
    rep_prompt           INTEGER,        -- reported usage, all NULL when none was reported
    rep_completion       INTEGER,
    rep_total            INTEGER,
    rep_cached           INTEGER,
    rep_reasoning        INTEGER,
    est_prompt           INTEGER NOT NULL,
    est_completion       INTEGER NOT NULL,
    est_total            INTEGER NOT NULL,
    est_cached           INTEGER NOT NULL,
    est_reasoning        INTEGER NOT NULL,
    ttft_ns              INTEGER NOT NULL,
    latency_ns           INTEGER NOT NULL,
    finish_reason        TEXT NOT NULL,
    error                TEXT NOT NULL,
    UNIQUE (chat_id, id),
    FOREIGN KEY (chat_id, branch) REFERENCES branches (chat_id, name),
    FOREIGN KEY (chat_id, user_message_id) REFERENCES messages (chat_id, id),
    FOREIGN KEY (chat_id, assistant_message_id) REFERENCES messages (chat_id, id)
) STRICT;

CREATE INDEX turns_user ON turns (chat_id, user_message_id);
CREATE INDEX turns_assistant ON turns (chat_id, assistant_message_id);

-- The decision list of a turn, apart so that loading turns never reads it.
CREATE TABLE turn_decisions (
    turn_pk   INTEGER PRIMARY KEY REFERENCES turns (pk),
    decisions TEXT NOT NULL
) STRICT;

-- Full-text index of the text parts of messages (reminders baked into them left out);
-- rowid = messages.pk.
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    text,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);

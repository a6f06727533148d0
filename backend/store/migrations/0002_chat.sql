-- Providers (CHAT-1). The API key is never stored here: it lives in the secret store as
-- provider.<id>.apiKey. models is a JSON array of {id, contextWindow, supportsTools,
-- vision, reasoning, source}.
CREATE TABLE providers (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL COLLATE NOCASE UNIQUE,
    preset        TEXT NOT NULL DEFAULT 'custom',
    base_url      TEXT NOT NULL,
    models        TEXT NOT NULL DEFAULT '[]',
    default_model TEXT NOT NULL DEFAULT '',
    position      INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

-- Sessions (CHAT-3). provider_id NULL = the default provider at send time.
-- temperature NULL = the provider's default. toolsets is a JSON array of names.
CREATE TABLE sessions (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('chat', 'task')),
    title         TEXT NOT NULL DEFAULT '',
    provider_id   TEXT REFERENCES providers(id) ON DELETE SET NULL,
    model         TEXT NOT NULL DEFAULT '',
    system_prompt TEXT NOT NULL DEFAULT '',
    temperature   REAL,
    toolsets      TEXT NOT NULL DEFAULT '[]',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX sessions_by_update ON sessions(updated_at DESC);

-- Messages in session order (seq). status: complete | streaming | stopped | error |
-- interrupted. owner_pid is the process streaming the message, so start-up recovery
-- only marks messages of dead processes as interrupted.
CREATE TABLE messages (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    status        TEXT NOT NULL,
    provider_id   TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL DEFAULT '',
    finish_reason TEXT NOT NULL DEFAULT '',
    usage         TEXT,
    error         TEXT,
    owner_pid     INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming';

-- The ordered parts of a message, written while they stream. text holds text/reasoning;
-- data the JSON of the other kinds (tool call, tool result, status, approval).
-- state: streaming | done.
CREATE TABLE parts (
    id         TEXT PRIMARY KEY,
    message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    idx        INTEGER NOT NULL,
    round      INTEGER NOT NULL DEFAULT 0,
    type       TEXT NOT NULL,
    state      TEXT NOT NULL,
    text       TEXT NOT NULL DEFAULT '',
    data       TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (message_id, idx)
);

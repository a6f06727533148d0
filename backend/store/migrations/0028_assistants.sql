-- Assistants: saved presets a conversation starts from (instructions, model, parameters,
-- toolsets, knowledge bases, skills). Built-in assistants live in code, not here;
-- assistant_hidden keeps any assistant, built-in or not, out of the New chat picker, and
-- assistant_sessions says which assistant a conversation came from (its name and icon at
-- the time, for when the assistant is deleted later).
CREATE TABLE assistants (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    icon             TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    instructions     TEXT NOT NULL DEFAULT '',
    provider_id      TEXT NOT NULL DEFAULT '',
    model            TEXT NOT NULL DEFAULT '',
    temperature      REAL,
    top_p            REAL,
    max_tokens       INTEGER NOT NULL DEFAULT 0,
    context_messages INTEGER NOT NULL DEFAULT 0,
    toolsets         TEXT NOT NULL DEFAULT '[]',
    kbs              TEXT NOT NULL DEFAULT '[]',
    skills           TEXT NOT NULL DEFAULT '[]',
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);

CREATE TABLE assistant_hidden (
    id TEXT PRIMARY KEY
);

CREATE TABLE assistant_sessions (
    session_id   TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    assistant_id TEXT NOT NULL,
    name         TEXT NOT NULL,
    icon         TEXT NOT NULL
);

-- Sub-agents. A child conversation is a session of its own, linked to the parent session
-- and the tool call that started it (it goes with its parent; the sidebar lists only
-- sessions without a parent). agent_runs is the agents capability's record of each child:
-- its name, type, state and the account it gave its parent. agent_types are the types the
-- user defined in Settings (the built-in ones live in code).
ALTER TABLE sessions ADD COLUMN parent_session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE;
ALTER TABLE sessions ADD COLUMN parent_call_id TEXT NOT NULL DEFAULT '';
CREATE INDEX sessions_by_parent ON sessions(parent_session_id) WHERE parent_session_id IS NOT NULL;

CREATE TABLE agent_runs (
    session_id        TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    parent_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    parent_call_id    TEXT NOT NULL,
    name              TEXT NOT NULL,
    type              TEXT NOT NULL,
    description       TEXT NOT NULL DEFAULT '',
    state             TEXT NOT NULL CHECK (state IN ('running', 'done', 'error', 'stopped', 'budget')),
    summary           TEXT NOT NULL DEFAULT '{}',
    created_at        INTEGER NOT NULL,
    ended_at          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX agent_runs_by_call ON agent_runs(parent_session_id, parent_call_id);

CREATE TABLE agent_types (
    name         TEXT PRIMARY KEY,
    description  TEXT NOT NULL DEFAULT '',
    instructions TEXT NOT NULL DEFAULT '',
    tools        TEXT NOT NULL DEFAULT '[]',
    provider_id  TEXT NOT NULL DEFAULT '',
    model        TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);

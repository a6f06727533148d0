-- The workspace of each task session: the folder its sandbox tools work in, chosen by the
-- user or made by Cairn under the data directory (made = 1: Cairn created it).
CREATE TABLE sandbox_workspaces (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    made       INTEGER NOT NULL DEFAULT 0,
    set_at     INTEGER NOT NULL
);

-- Approval requests (APPR-1). The backend is their only writer: a request is inserted
-- pending when a call needs the user's decision, and leaves pending exactly once, by
-- `UPDATE … WHERE status = 'pending'` (the first decision wins).
-- status: pending | allowed | denied | cancelled (the turn was stopped) |
--         interrupted (the process ended while it waited) | resumed (asked again).
-- decision: allow_once | allow_session | allow_always | deny (NULL until decided).
-- touches: JSON {paths, urls, commands, cwd}; rules: JSON array of the allow rules an
-- "allow for this session" / "always allow" decision creates; call_scope: the call's
-- tools.Scope JSON, so an interrupted call can be resumed as it was.
-- owner_pid / owner_id: the process and service instance that waits for the decision,
-- so start-up recovery only interrupts requests nobody waits for.
CREATE TABLE approval_requests (
    id              TEXT PRIMARY KEY,
    session_id      TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    message_id      TEXT NOT NULL DEFAULT '',
    call_id         TEXT NOT NULL,
    tool            TEXT NOT NULL,
    namespace       TEXT NOT NULL DEFAULT '',
    server          TEXT NOT NULL DEFAULT '',
    args            TEXT NOT NULL DEFAULT '{}',
    touches         TEXT NOT NULL DEFAULT '{}',
    read_only       INTEGER NOT NULL DEFAULT 0,
    destructive     INTEGER NOT NULL DEFAULT 0,
    fingerprint     TEXT NOT NULL DEFAULT '',
    mode            TEXT NOT NULL DEFAULT 'default',
    ask_reason      TEXT NOT NULL DEFAULT '',
    rules           TEXT NOT NULL DEFAULT '[]',
    call_scope      TEXT NOT NULL DEFAULT '{}',
    status          TEXT NOT NULL CHECK (status IN ('pending', 'allowed', 'denied', 'cancelled', 'interrupted', 'resumed')),
    decision        TEXT CHECK (decision IN ('allow_once', 'allow_session', 'allow_always', 'deny')),
    decision_reason TEXT NOT NULL DEFAULT '',
    source          TEXT NOT NULL DEFAULT '',
    window_name     TEXT NOT NULL DEFAULT '',
    rule_ids        TEXT NOT NULL DEFAULT '[]',
    resumed_from    TEXT NOT NULL DEFAULT '',
    owner_pid       INTEGER NOT NULL DEFAULT 0,
    owner_id        TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    decided_at      INTEGER
);
CREATE INDEX approval_requests_open ON approval_requests(status) WHERE status IN ('pending', 'interrupted');
CREATE INDEX approval_requests_by_session ON approval_requests(session_id, created_at);

-- Permission rules (APPR-2): allow / deny / ask on a tool glob, a path glob and a shell
-- command prefix. session_id NULL = every session. fingerprint binds an MCP "always
-- allow" to the tool's schema and its server's command/URL.
-- source: user_temporary | user_permanent | config.
CREATE TABLE permission_rules (
    id          TEXT PRIMARY KEY,
    behavior    TEXT NOT NULL CHECK (behavior IN ('allow', 'deny', 'ask')),
    tool        TEXT NOT NULL DEFAULT '',
    path        TEXT NOT NULL DEFAULT '',
    command     TEXT NOT NULL DEFAULT '',
    fingerprint TEXT NOT NULL DEFAULT '',
    session_id  TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    note        TEXT NOT NULL DEFAULT '',
    request_id  TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX permission_rules_by_session ON permission_rules(session_id);

-- A session's own permission mode; without a row the setting permissions.defaultMode
-- applies.
CREATE TABLE session_permissions (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    mode       TEXT NOT NULL CHECK (mode IN ('default', 'acceptEdits', 'plan', 'bypassPermissions')),
    updated_at INTEGER NOT NULL
);

-- The audit log (APPR-3): every permission decision, automatic or the user's. It keeps
-- no foreign keys so it outlives the sessions and rules it names.
-- decision: allow_once | allow_session | allow_always | deny | cancelled | interrupted |
--           resumed | auto_allow | auto_deny (decided by a rule, the mode, the defaults
--           or a hook, without asking anyone).
CREATE TABLE approval_audit (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    at            INTEGER NOT NULL,
    request_id    TEXT NOT NULL DEFAULT '',
    session_id    TEXT NOT NULL DEFAULT '',
    session_title TEXT NOT NULL DEFAULT '',
    call_id       TEXT NOT NULL DEFAULT '',
    tool          TEXT NOT NULL,
    args_summary  TEXT NOT NULL DEFAULT '',
    decision      TEXT NOT NULL,
    behavior      TEXT NOT NULL,
    source        TEXT NOT NULL DEFAULT '',
    window_name   TEXT NOT NULL DEFAULT '',
    reason        TEXT NOT NULL DEFAULT '',
    rule_id       TEXT NOT NULL DEFAULT '',
    mode          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX approval_audit_at ON approval_audit(at DESC);
CREATE INDEX approval_audit_by_session ON approval_audit(session_id, at DESC);

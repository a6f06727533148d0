-- MCP servers (MCP-1, MCP-2, MCP-4). Secret env values and header values are never
-- stored here: env / headers hold the plain ones, secret_env / secret_headers the names
-- whose values live in the secret store (mcp.<id>.env.<name>, mcp.<id>.header.<name>).
-- transport: stdio | http (Streamable HTTP, falling back to SSE) | sse | builtin.
CREATE TABLE mcp_servers (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL COLLATE NOCASE UNIQUE,
    transport          TEXT NOT NULL CHECK (transport IN ('stdio', 'http', 'sse', 'builtin')),
    command            TEXT NOT NULL DEFAULT '',
    args               TEXT NOT NULL DEFAULT '[]',
    env                TEXT NOT NULL DEFAULT '{}',
    secret_env         TEXT NOT NULL DEFAULT '[]',
    cwd                TEXT NOT NULL DEFAULT '',
    url                TEXT NOT NULL DEFAULT '',
    headers            TEXT NOT NULL DEFAULT '{}',
    secret_headers     TEXT NOT NULL DEFAULT '[]',
    roots              TEXT NOT NULL DEFAULT '[]',
    connect_timeout_ms INTEGER NOT NULL DEFAULT 0,
    call_timeout_ms    INTEGER NOT NULL DEFAULT 0,
    enabled            INTEGER NOT NULL DEFAULT 1,
    position           INTEGER NOT NULL DEFAULT 0,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);

-- The tool catalog cache (MCP-3): listTools reads only this. No row = never warmed;
-- a row with '[]' = warmed, no tools. tools is the JSON array of the server's tool
-- definitions as tools/list returned them.
CREATE TABLE mcp_tool_cache (
    server_id    TEXT PRIMARY KEY REFERENCES mcp_servers(id) ON DELETE CASCADE,
    tools        TEXT NOT NULL,
    instructions TEXT NOT NULL DEFAULT '',
    server_info  TEXT NOT NULL DEFAULT '{}',
    refreshed_at INTEGER NOT NULL
);

-- Per-tool choices of the user, keyed by the server's own tool name.
-- approval: '' = default (ask unless the tool is annotated read-only) | 'ask' | 'allow'.
CREATE TABLE mcp_tool_prefs (
    server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
    tool      TEXT NOT NULL,
    enabled   INTEGER NOT NULL DEFAULT 1,
    approval  TEXT NOT NULL DEFAULT '' CHECK (approval IN ('', 'ask', 'allow')),
    PRIMARY KEY (server_id, tool)
);

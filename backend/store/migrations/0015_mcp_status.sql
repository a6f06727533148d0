-- The last state of each MCP server as the last Cairn to run it saw it, so a list read
-- without connecting (a new window, `cairn mcp list`) shows a server that failed and why.
-- state: error | failed | needs-sign-in (a server that is ready, idle or off has no row);
-- error: the apperr JSON a window renders; at: unix ms of the change.
CREATE TABLE mcp_server_status (
    server_id TEXT PRIMARY KEY REFERENCES mcp_servers(id) ON DELETE CASCADE,
    state     TEXT NOT NULL,
    error     TEXT NOT NULL DEFAULT '',
    at        INTEGER NOT NULL
);

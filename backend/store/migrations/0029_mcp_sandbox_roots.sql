-- Per MCP server: its sandbox (JSON {enabled, write, read, domains}; '' = off) and which
-- roots it is offered ('' = decided from its arguments, none, workspace or folders).
-- A server that had configured roots keeps being offered them and the calling task
-- session's workspace: the automatic mode gives exactly that.
ALTER TABLE mcp_servers ADD COLUMN sandbox TEXT NOT NULL DEFAULT '';
ALTER TABLE mcp_servers ADD COLUMN roots_mode TEXT NOT NULL DEFAULT '';

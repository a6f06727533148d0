-- Whether a server's own read-only annotations let its tools run unasked (and in plan
-- mode). On for every server the user added; off makes them ask like any other tool.
ALTER TABLE mcp_servers ADD COLUMN trust_read_only_hints INTEGER NOT NULL DEFAULT 1;

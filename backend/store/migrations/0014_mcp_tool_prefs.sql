-- One store for the user's per-tool choices (Settings → Tools, Settings → MCP,
-- `cairn mcp`): tool_prefs (0005, by wire name) and mcp_tool_prefs (0004, by server and
-- tool) both said whether a tool is switched off. Now one table: an MCP tool is keyed by
-- its server's id and its own name, so a new wire name (a renamed server, a new spelling
-- of the readable part) keeps the choice; every other tool by its wire name, with
-- server_id ''. approval: '' = default (ask unless the tool is read-only) | 'ask' | 'allow'.
ALTER TABLE tool_prefs RENAME TO tool_prefs_by_wire_name;

CREATE TABLE tool_prefs (
    server_id  TEXT NOT NULL DEFAULT '',
    tool       TEXT NOT NULL,
    enabled    INTEGER NOT NULL DEFAULT 1,
    approval   TEXT NOT NULL DEFAULT '' CHECK (approval IN ('', 'ask', 'allow')),
    updated_at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (server_id, tool)
);

-- A server's choices go with it (server_id '' is no server, so no foreign key).
CREATE TRIGGER tool_prefs_server_deleted AFTER DELETE ON mcp_servers
BEGIN
    DELETE FROM tool_prefs WHERE server_id = old.id;
END;

INSERT INTO tool_prefs (server_id, tool, enabled, approval)
SELECT server_id, tool, enabled, approval FROM mcp_tool_prefs;

-- Built-in tools keep their wire names.
INSERT INTO tool_prefs (server_id, tool, enabled, updated_at)
SELECT '', name, enabled, updated_at FROM tool_prefs_by_wire_name
WHERE name NOT LIKE 'mcp\_\_%' ESCAPE '\';

-- An MCP wire name ends with the first 20 hex digits of sha256(server id + tool name):
-- matched against the cached tool lists, it finds the tool. A tool switched off in either
-- table stays off; the approval comes from mcp_tool_prefs. A name no cached tool has
-- belonged to a tool that is gone.
INSERT INTO tool_prefs (server_id, tool, enabled, updated_at)
SELECT c.server_id, json_extract(j.value, '$.name'), p.enabled, p.updated_at
FROM tool_prefs_by_wire_name p, mcp_tool_cache c, json_each(c.tools) j
WHERE p.name LIKE 'mcp\_\_%' ESCAPE '\'
  AND json_extract(j.value, '$.name') IS NOT NULL
  AND substr(p.name, -20) = substr(sha256_hex(c.server_id || json_extract(j.value, '$.name')), 1, 20)
ON CONFLICT (server_id, tool) DO UPDATE SET enabled = min(enabled, excluded.enabled), updated_at = excluded.updated_at;

DROP TABLE tool_prefs_by_wire_name;
DROP TABLE mcp_tool_prefs;

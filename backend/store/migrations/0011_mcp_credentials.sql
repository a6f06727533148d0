-- Credentials Cairn found inside a server's arguments, URL or plain env / header values
-- (a password in a URL, --api-key=…, ?token=…) and moved to the secret store
-- (mcp.<id>.cred.<name>): the JSON list of their names. The texts keep the placeholder
-- {{cairn-secret:<name>}} where each was; no value is ever stored here.
ALTER TABLE mcp_servers ADD COLUMN credentials TEXT NOT NULL DEFAULT '[]';

-- Tools the user turned off in Settings → Tools (by wire name); absent means enabled.
CREATE TABLE tool_prefs (
    name       TEXT PRIMARY KEY,
    enabled    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

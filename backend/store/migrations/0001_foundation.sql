-- Settings: one row per key, the value as JSON. Secrets never live here.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

-- A small key/value table for facts about the installation (first run, last version).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Which secrets are set (names only; the values live in the OS keyring or the 0600 file).
CREATE TABLE secret_index (
    name       TEXT PRIMARY KEY,
    updated_at INTEGER NOT NULL
);

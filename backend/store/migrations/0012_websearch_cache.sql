-- Web search answers kept for the cache TTL (Settings → Web search), keyed by a hash of the
-- provider, its endpoint, the normalized query and the options. Only results are stored:
-- never a key, never a request header.
CREATE TABLE websearch_cache (
  key        TEXT PRIMARY KEY,
  provider   TEXT NOT NULL,
  query      TEXT NOT NULL,
  results    TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX websearch_cache_expires ON websearch_cache (expires_at);

-- Knowledge bases: their files (a content-addressed copy under kb/blobs), each file's
-- ingest state, its chunks with their positions and vectors (float32 little-endian), and
-- one contentless FTS5 index of the chunks whose second column holds the bigrams of
-- Han, Kana and Hangul runs.
CREATE TABLE kb_bases (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL UNIQUE,
    chunk_size     INTEGER NOT NULL,
    chunk_overlap  INTEGER NOT NULL,
    embed_provider TEXT NOT NULL DEFAULT '',
    embed_model    TEXT NOT NULL DEFAULT '',
    embed_dims     INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);

CREATE TABLE kb_files (
    id            TEXT PRIMARY KEY,
    kb_id         TEXT NOT NULL REFERENCES kb_bases(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    source        TEXT NOT NULL DEFAULT '',
    sha256        TEXT NOT NULL,
    size          INTEGER NOT NULL,
    state         TEXT NOT NULL,
    resume_state  TEXT NOT NULL DEFAULT '',
    error_code    TEXT NOT NULL DEFAULT '',
    error_message TEXT NOT NULL DEFAULT '',
    chunks        INTEGER NOT NULL DEFAULT 0,
    embedded      INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (kb_id, sha256)
);
CREATE INDEX kb_files_state ON kb_files(state, created_at);

CREATE TABLE kb_chunks (
    id         INTEGER PRIMARY KEY,
    file_id    TEXT NOT NULL REFERENCES kb_files(id) ON DELETE CASCADE,
    kb_id      TEXT NOT NULL,
    idx        INTEGER NOT NULL,
    text       TEXT NOT NULL,
    heading    TEXT NOT NULL DEFAULT '',
    page_start INTEGER NOT NULL DEFAULT 0,
    page_end   INTEGER NOT NULL DEFAULT 0,
    line_start INTEGER NOT NULL DEFAULT 0,
    line_end   INTEGER NOT NULL DEFAULT 0,
    vector     BLOB,
    UNIQUE (file_id, idx)
);
CREATE INDEX kb_chunks_kb ON kb_chunks(kb_id);

CREATE VIRTUAL TABLE kb_fts USING fts5(
    text, cjk, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);

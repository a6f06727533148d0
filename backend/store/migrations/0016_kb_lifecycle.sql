-- Knowledge base lifecycle: the KBs a session has attached (kb_search searches them by
-- default), folders a KB keeps in sync with what each of their files was when last seen,
-- a background re-embed (the model being moved to and each chunk's vector from it, kept
-- beside the old one until all are there) and an optional rerank model per KB.
CREATE TABLE kb_session_kbs (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kb_id      TEXT NOT NULL REFERENCES kb_bases(id) ON DELETE CASCADE,
    PRIMARY KEY (session_id, kb_id)
);

CREATE TABLE kb_folders (
    id         TEXT PRIMARY KEY,
    kb_id      TEXT NOT NULL REFERENCES kb_bases(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    ignore     TEXT NOT NULL DEFAULT '[]',
    sync       INTEGER NOT NULL DEFAULT 1,
    synced_at  INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    UNIQUE (kb_id, path)
);

-- One row per file seen in a folder: its path relative to the folder, size, mtime (unix
-- ns) and the file of the KB that holds its content.
CREATE TABLE kb_folder_entries (
    folder_id TEXT NOT NULL REFERENCES kb_folders(id) ON DELETE CASCADE,
    rel       TEXT NOT NULL,
    size      INTEGER NOT NULL,
    mtime     INTEGER NOT NULL,
    sha256    TEXT NOT NULL,
    file_id   TEXT NOT NULL,
    PRIMARY KEY (folder_id, rel)
);
CREATE INDEX kb_folder_entries_file ON kb_folder_entries(file_id);

ALTER TABLE kb_bases ADD COLUMN next_embed_provider TEXT NOT NULL DEFAULT '';
ALTER TABLE kb_bases ADD COLUMN next_embed_model TEXT NOT NULL DEFAULT '';
ALTER TABLE kb_bases ADD COLUMN next_embed_dims INTEGER NOT NULL DEFAULT 0;
ALTER TABLE kb_bases ADD COLUMN rerank_provider TEXT NOT NULL DEFAULT '';
ALTER TABLE kb_bases ADD COLUMN rerank_model TEXT NOT NULL DEFAULT '';
ALTER TABLE kb_chunks ADD COLUMN next_vector BLOB;

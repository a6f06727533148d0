-- Files attached to messages. One row per content (id = SHA-256 of the bytes, which live
-- under attachments/<id[:2]>/<id> in the data directory, the extracted text of a document
-- beside them as <id>.txt). kind: image | document. pending_since is when the content was
-- last uploaded and not yet sent (0 once a message uses it): an upload waiting in a
-- composer is not freed by a session's deletion, and one never sent is swept after a day.
CREATE TABLE attachments (
    id            TEXT PRIMARY KEY,
    size          INTEGER NOT NULL,
    mime          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('image', 'document')),
    lines         INTEGER NOT NULL DEFAULT 0,
    tokens        INTEGER NOT NULL DEFAULT 0,
    pending_since INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL
);

-- Which message uses which file, under the name the user gave it. Deleting a message
-- (or its session) deletes its links; a file without links is freed.
CREATE TABLE attachment_links (
    message_id    TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    attachment_id TEXT NOT NULL REFERENCES attachments(id),
    name          TEXT NOT NULL,
    PRIMARY KEY (message_id, idx)
);
CREATE INDEX attachment_links_by_file ON attachment_links(attachment_id);

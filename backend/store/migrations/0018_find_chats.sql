-- Finding conversations (issue 22). active_at is when the conversation last had a message
-- (the list's order: a rename or a settings change does not move it); pinned_at > 0 keeps
-- it on top, archived_at > 0 takes it out of the list (still searchable).
ALTER TABLE sessions ADD COLUMN active_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN pinned_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN archived_at INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET active_at = COALESCE((SELECT MAX(m.created_at) FROM messages m WHERE m.session_id = sessions.id), created_at);
CREATE INDEX sessions_by_activity ON sessions(archived_at, pinned_at DESC, active_at DESC);

-- active_at follows the messages, whoever writes them (a send, an import).
CREATE TRIGGER sessions_active_insert AFTER INSERT ON sessions WHEN NEW.active_at = 0 BEGIN
    UPDATE sessions SET active_at = NEW.created_at WHERE id = NEW.id;
END;
CREATE TRIGGER messages_active AFTER INSERT ON messages BEGIN
    UPDATE sessions SET active_at = MAX(active_at, NEW.created_at) WHERE id = NEW.session_id;
END;

-- The words of every finished text part, as the knowledge bases index theirs: text holds
-- the words (CJK blanked), cjk the bigrams of Han, Kana and Hangul runs (the SQL functions
-- cjk_words and cjk_bigrams that store registers). The FTS rowid is message_fts_parts'
-- INTEGER PRIMARY KEY, not parts' implicit rowid, which VACUUM (and VACUUM INTO, the
-- backup) may renumber. Triggers keep both in step with parts, so a deleted message or
-- session (cascade) takes its rows along; a part still streaming is indexed once done.
CREATE TABLE message_fts_parts (
    rowid   INTEGER PRIMARY KEY,
    part_id TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE message_fts USING fts5(
    text, cjk, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);

CREATE TRIGGER parts_fts_insert AFTER INSERT ON parts
WHEN NEW.type = 'text' AND NEW.state = 'done' AND NEW.text != '' BEGIN
    INSERT INTO message_fts_parts(part_id) VALUES (NEW.id);
    INSERT INTO message_fts(rowid, text, cjk)
        SELECT rowid, cjk_words(NEW.text), cjk_bigrams(NEW.text) FROM message_fts_parts WHERE part_id = NEW.id;
END;

CREATE TRIGGER parts_fts_update AFTER UPDATE OF text, state, type ON parts BEGIN
    DELETE FROM message_fts WHERE rowid = (SELECT rowid FROM message_fts_parts WHERE part_id = OLD.id);
    DELETE FROM message_fts_parts WHERE part_id = OLD.id;
    INSERT INTO message_fts_parts(part_id)
        SELECT NEW.id WHERE NEW.type = 'text' AND NEW.state = 'done' AND NEW.text != '';
    INSERT INTO message_fts(rowid, text, cjk)
        SELECT rowid, cjk_words(NEW.text), cjk_bigrams(NEW.text) FROM message_fts_parts WHERE part_id = NEW.id;
END;

CREATE TRIGGER parts_fts_delete AFTER DELETE ON parts BEGIN
    DELETE FROM message_fts WHERE rowid = (SELECT rowid FROM message_fts_parts WHERE part_id = OLD.id);
    DELETE FROM message_fts_parts WHERE part_id = OLD.id;
END;

INSERT INTO message_fts_parts(part_id)
    SELECT id FROM parts WHERE type = 'text' AND state = 'done' AND text != '' ORDER BY rowid;
INSERT INTO message_fts(rowid, text, cjk)
    SELECT mp.rowid, cjk_words(p.text), cjk_bigrams(p.text) FROM message_fts_parts mp JOIN parts p ON p.id = mp.part_id;

-- Messages form a tree: a regenerated answer or an edited question is a sibling of the
-- one it replaces, and every node remembers which of its children is chosen, so the
-- conversation shown (and sent to the model) is the path of choices from the chosen root.
-- parent_id NULL is a root; chosen_child_id '' (or an id that is no child) means the
-- newest child, sessions.chosen_root_id '' the newest root. A deleted message takes its
-- subtree along (cascade), as a deleted session takes all of them.
ALTER TABLE messages ADD COLUMN parent_id TEXT REFERENCES messages(id) ON DELETE CASCADE;
ALTER TABLE messages ADD COLUMN chosen_child_id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN chosen_root_id TEXT NOT NULL DEFAULT '';

-- Every conversation so far is a line: each message's parent is the one before it, its
-- chosen child the one after it, the first one the root.
UPDATE messages SET parent_id = (
    SELECT p.id FROM messages p WHERE p.session_id = messages.session_id AND p.seq < messages.seq ORDER BY p.seq DESC LIMIT 1);
UPDATE messages SET chosen_child_id = COALESCE((
    SELECT c.id FROM messages c WHERE c.session_id = messages.session_id AND c.seq > messages.seq ORDER BY c.seq LIMIT 1), '');
UPDATE sessions SET chosen_root_id = COALESCE((
    SELECT m.id FROM messages m WHERE m.session_id = sessions.id ORDER BY m.seq LIMIT 1), '');

CREATE INDEX messages_by_parent ON messages(parent_id);

package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestMigration0022MakesLinesIntoTrees: every stored conversation becomes a tree whose
// chosen path is the conversation as it was (each message's parent the one before it,
// its chosen child the one after), an empty one has no root, and nothing is lost.
func TestMigration0022MakesLinesIntoTrees(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cairn.db")
	db, err := open(ctx, path, migrationsUpTo(t, 21), "migrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sessions (id, kind, title, created_at, updated_at) VALUES ('s1', 'chat', 'a', 10, 10), ('s2', 'chat', 'b', 20, 20), ('s3', 'chat', '', 30, 30)`,
		`INSERT INTO messages (id, session_id, seq, role, status, created_at, updated_at) VALUES
			('a1', 's1', 1, 'user', 'complete', 1, 1), ('a2', 's1', 2, 'assistant', 'complete', 2, 2),
			('a3', 's1', 5, 'user', 'complete', 3, 3), ('a4', 's1', 6, 'assistant', 'error', 4, 4),
			('b1', 's2', 1, 'user', 'complete', 5, 5)`,
		`INSERT INTO parts (id, message_id, idx, type, state, text, created_at, updated_at) VALUES ('p1', 'a3', 0, 'text', 'done', 'kept', 3, 3)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db, err = open(ctx, path, migrationFS, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type node struct{ parent, chosen string }
	want := map[string]node{"a1": {"", "a2"}, "a2": {"a1", "a3"}, "a3": {"a2", "a4"}, "a4": {"a3", ""}, "b1": {"", ""}}
	rows, err := db.QueryContext(ctx, `SELECT id, parent_id, chosen_child_id FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, chosen string
		var parent sql.NullString
		if err := rows.Scan(&id, &parent, &chosen); err != nil {
			t.Fatal(err)
		}
		n++
		if got := (node{parent.String, chosen}); got != want[id] {
			t.Errorf("%s: %+v, want %+v", id, got, want[id])
		}
	}
	if n != len(want) {
		t.Errorf("%d messages, want %d", n, len(want))
	}
	for id, root := range map[string]string{"s1": "a1", "s2": "b1", "s3": ""} {
		var got string
		if err := db.QueryRowContext(ctx, `SELECT chosen_root_id FROM sessions WHERE id = ?`, id).Scan(&got); err != nil || got != root {
			t.Errorf("%s root = %q %v, want %q", id, got, err, root)
		}
	}
	var text string
	if err := db.QueryRowContext(ctx, `SELECT text FROM parts WHERE message_id = 'a3'`).Scan(&text); err != nil || text != "kept" {
		t.Errorf("part = %q %v", text, err)
	}
	// A deleted message takes its subtree along.
	if _, err := db.ExecContext(ctx, `DELETE FROM messages WHERE id = 'a2'`); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE session_id = 's1'`).Scan(&left); err != nil || left != 1 {
		t.Errorf("after deleting a2: %d messages left %v, want 1", left, err)
	}
}

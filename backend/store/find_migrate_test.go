package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestMigration0018IndexesExistingMessages: the upgrade indexes the finished text parts
// already stored (English words and a two-character Chinese word), not the streaming or
// non-text ones, and dates each conversation by its last message.
func TestMigration0018IndexesExistingMessages(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cairn.db")
	db, err := open(ctx, path, migrationsUpTo(t, 17), "migrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sessions (id, kind, title, created_at, updated_at) VALUES ('s1', 'chat', 'old', 10, 99), ('s2', 'chat', '', 20, 20)`,
		`INSERT INTO messages (id, session_id, seq, role, status, created_at, updated_at) VALUES
			('m1', 's1', 1, 'user', 'complete', 30, 30), ('m2', 's1', 2, 'assistant', 'streaming', 40, 40)`,
		`INSERT INTO parts (id, message_id, idx, type, state, text, created_at, updated_at) VALUES
			('p1', 'm1', 0, 'text', 'done', 'Where is the lighthouse? 灯塔在哪里', 30, 30),
			('p2', 'm2', 0, 'text', 'streaming', 'halfway lighthouse', 40, 40),
			('p3', 'm2', 1, 'reasoning', 'done', 'thinking about lighthouse', 40, 40)`,
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
	hits := func(match string) (ids []string) {
		t.Helper()
		rs, err := db.QueryContext(ctx, `SELECT mp.part_id FROM message_fts f JOIN message_fts_parts mp ON mp.rowid = f.rowid
			WHERE message_fts MATCH ? ORDER BY mp.part_id`, match)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		for rs.Next() {
			var id string
			if err := rs.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	for match, want := range map[string]string{`text:"lighthouse"`: "p1", `cjk:"灯塔"`: "p1", `cjk:"哪里"`: "p1", `text:"halfway"`: ""} {
		got := ""
		if ids := hits(match); len(ids) > 0 {
			got = ids[0]
			if len(ids) > 1 {
				got += "+"
			}
		}
		if got != want {
			t.Errorf("%s: %q, want %q", match, got, want)
		}
	}
	// The streaming part is indexed once it is done.
	if _, err := db.ExecContext(ctx, `UPDATE parts SET state = 'done' WHERE id = 'p2'`); err != nil {
		t.Fatal(err)
	}
	if ids := hits(`text:"halfway"`); len(ids) != 1 || ids[0] != "p2" {
		t.Errorf("after done: %v", ids)
	}
	for id, want := range map[string]int64{"s1": 40, "s2": 20} {
		var at int64
		if err := db.QueryRowContext(ctx, `SELECT active_at FROM sessions WHERE id = ?`, id).Scan(&at); err != nil || at != want {
			t.Errorf("%s active_at = %d %v, want %d", id, at, err, want)
		}
	}
}

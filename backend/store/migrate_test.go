package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// migrationsUpTo is the embedded migrations up to version n, as an older Cairn had them.
func migrationsUpTo(t *testing.T, n int) fstest.MapFS {
	t.Helper()
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	for _, m := range ms {
		if m.Version <= n {
			b, err := fs.ReadFile(migrationFS, "migrations/"+m.Name)
			if err != nil {
				t.Fatal(err)
			}
			out["migrations/"+m.Name] = &fstest.MapFile{Data: b}
		}
	}
	return out
}

// oldMCPWireName is a wire name as Cairn before 0014 spelt it: the readable part as it
// was (aPIGetSelf), the hash that carries the identity.
func oldMCPWireName(server, readable, serverID, tool string) string {
	sum := sha256.Sum256([]byte(serverID + tool))
	return "mcp__" + server + "__" + readable + "_" + hex.EncodeToString(sum[:])[:20]
}

// TestMigration0014OneToolPrefsTable: the choices stored in both old tables (by wire name
// and by server and tool) are in the one table after the upgrade: built-in tools by
// wire name, MCP tools by server and tool (found through the hash of their old wire
// name), off when either table said off, with their approval; a name no cached tool has
// is dropped, and a server's choices go when it is deleted.
func TestMigration0014OneToolPrefsTable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cairn.db")
	db, err := open(ctx, path, migrationsUpTo(t, 13), "migrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO mcp_servers (id, name, transport, created_at, updated_at) VALUES ('srv-1', 'Notion', 'stdio', 1, 1), ('srv-2', 'fs', 'stdio', 1, 1)`,
		`INSERT INTO mcp_tool_cache (server_id, tools, refreshed_at) VALUES
			('srv-1', '[{"name":"API-get-self"},{"name":"API-post-page"},{"name":"search"}]', 1),
			('srv-2', '[{"name":"read_file"},{"name":"write_file"}]', 1)`,
		`INSERT INTO mcp_tool_prefs (server_id, tool, enabled, approval) VALUES
			('srv-1', 'API-post-page', 1, 'allow'), ('srv-1', 'search', 0, ''), ('srv-2', 'read_file', 1, 'ask')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for name, on := range map[string]int{
		"web_fetch":  0,
		"file_write": 1,
		oldMCPWireName("notion", "aPIGetSelf", "srv-1", "API-get-self"):   0,
		oldMCPWireName("notion", "aPIPostPage", "srv-1", "API-post-page"): 0,
		oldMCPWireName("fs", "writeFile", "srv-2", "write_file"):          1,
		oldMCPWireName("gone", "old", "srv-9", "old"):                     0,
	} {
		if _, err := db.ExecContext(ctx, `INSERT INTO tool_prefs (name, enabled, updated_at) VALUES (?, ?, 5)`, name, on); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	db, err = open(ctx, path, migrationFS, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows := func() []string {
		t.Helper()
		rs, err := db.QueryContext(ctx, `SELECT server_id, tool, enabled, approval FROM tool_prefs ORDER BY server_id, tool`)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var out []string
		for rs.Next() {
			var server, tool, approval string
			var on int
			if err := rs.Scan(&server, &tool, &on, &approval); err != nil {
				t.Fatal(err)
			}
			state := map[int]string{0: "off", 1: "on"}[on]
			out = append(out, strings.Join([]string{server, tool, state, approval}, " "))
		}
		return out
	}
	want := []string{
		" file_write on ",
		" web_fetch off ",
		"srv-1 API-get-self off ",
		"srv-1 API-post-page off allow",
		"srv-1 search off ",
		"srv-2 read_file on ask",
		"srv-2 write_file on ",
	}
	if got := rows(); !slices.Equal(got, want) {
		t.Fatalf("tool_prefs after 0014:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, gone := range []string{"mcp_tool_prefs", "tool_prefs_by_wire_name"} {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = ?`, gone).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s still there (%d, %v)", gone, n, err)
		}
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM mcp_servers WHERE id = 'srv-2'`); err != nil {
		t.Fatal(err)
	}
	if got := rows(); !slices.Equal(got, want[:5]) {
		t.Fatalf("after deleting srv-2:\n%s", strings.Join(got, "\n"))
	}
}

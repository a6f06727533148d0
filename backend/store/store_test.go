package store

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/cairn-app/cairn/backend/apperr"
)

func TestOpenCreatesAndMigrates(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, err := db.Version(ctx)
	if err != nil || v != LatestVersion() || v == 0 {
		t.Fatalf("version = %d, %v; want %d", v, err, LatestVersion())
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v", mode, err)
	}
	var fk int
	if err := db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d, %v", fk, err)
	}
}

// TestUpgradeKeepsData writes data with an old schema and upgrades it with a newer set of
// migrations: the row survives and the new column/table exist.
func TestUpgradeKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	v1 := fstest.MapFS{"m/0001_a.sql": {Data: []byte("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL);")}}
	db, err := open(ctx, path, v1, "m")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO notes(body) VALUES ('keep me')"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	v2 := fstest.MapFS{
		"m/0001_a.sql": v1["m/0001_a.sql"],
		"m/0002_b.sql": {Data: []byte("ALTER TABLE notes ADD COLUMN title TEXT NOT NULL DEFAULT 'untitled'; CREATE TABLE tags(name TEXT);")},
	}
	db, err = open(ctx, path, v2, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var body, title string
	if err := db.QueryRow("SELECT body, title FROM notes").Scan(&body, &title); err != nil {
		t.Fatal(err)
	}
	if body != "keep me" || title != "untitled" {
		t.Fatalf("got %q %q", body, title)
	}
	if v, _ := db.Version(ctx); v != 2 {
		t.Fatalf("version %d", v)
	}
}

// TestFailedMigrationRollsBack: a broken step leaves the previous version and data intact.
func TestFailedMigrationRollsBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	v1 := fstest.MapFS{"m/0001_a.sql": {Data: []byte("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('x');")}}
	db, err := open(ctx, path, v1, "m")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	bad := fstest.MapFS{
		"m/0001_a.sql": v1["m/0001_a.sql"],
		"m/0002_b.sql": {Data: []byte("CREATE TABLE t2(a TEXT); THIS IS NOT SQL;")},
	}
	if _, err := open(ctx, path, bad, "m"); !apperr.Is(err, apperr.DBMigrateFailed) {
		t.Fatalf("err = %v, want db_migrate_failed", err)
	}
	db, err = open(ctx, path, v1, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, _ := db.Version(ctx); v != 1 {
		t.Fatalf("version %d after failed migration", v)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 't2'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("half-applied migration left t2: %d %v", n, err)
	}
}

// TestNewerDatabaseRefusedUntouched: a schema from the future is refused and not modified.
func TestNewerDatabaseRefusedUntouched(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	// Checkpoint and leave rollback-journal mode so the main file holds everything.
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	path := filepath.Join(dir, FileName)
	before := hashFile(t, path)
	_, err = Open(ctx, dir)
	if !apperr.Is(err, apperr.DBTooNew) {
		t.Fatalf("err = %v, want db_too_new", err)
	}
	ae := apperr.From(err)
	if ae.Params["version"] != 999 {
		t.Fatalf("params = %v", ae.Params)
	}
	if after := hashFile(t, path); after != before {
		t.Fatal("refused database was modified")
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("a WAL file was created next to the refused database")
	}
}

func TestGarbageFileIsAClearError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("this is not a database, but it is the user's file"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := hashFile(t, path)
	_, err := Open(context.Background(), dir)
	if !apperr.Is(err, apperr.DBOpenFailed) {
		t.Fatalf("err = %v, want db_open_failed", err)
	}
	if hashFile(t, path) != before {
		t.Fatal("garbage file modified")
	}
}

func TestMigrationNamesChecked(t *testing.T) {
	tests := []struct {
		name string
		fs   fstest.MapFS
	}{
		{"gap", fstest.MapFS{"m/0001_a.sql": {}, "m/0003_c.sql": {}}},
		{"no underscore", fstest.MapFS{"m/0001.sql": {}}},
		{"not a number", fstest.MapFS{"m/abc_a.sql": {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := loadMigrations(tt.fs, "m"); err == nil {
				t.Fatal("accepted bad migrations")
			}
		})
	}
}

func hashFile(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestOpenInADirectoryWithURICharacters: a data directory whose name holds what a file: URI
// reads as a query, a fragment or an escape keeps its database inside it.
func TestOpenInADirectoryWithURICharacters(t *testing.T) {
	parent := t.TempDir()
	for _, name := range []string{"C# notes", "what?", "100% done", "a#b?c%d"} {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		db, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		db.Close()
		if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
			t.Errorf("%s: the database is not in the directory: %v", name, err)
		}
	}
	left, _ := os.ReadDir(parent)
	if len(left) != 4 {
		t.Errorf("files outside the data directories: %v", left)
	}
}

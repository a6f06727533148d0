// Package store opens Cairn's one SQLite database (modernc.org/sqlite, WAL, foreign keys)
// and applies the embedded, versioned migrations. A database written by a newer Cairn is
// refused before anything touches it.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// FileName is the database file inside the data directory.
const FileName = "cairn.db"

// DB is the application database; it embeds *sql.DB so packages use the standard API.
type DB struct {
	*sql.DB
	Path string
}

// Migration is one numbered schema step.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the embedded migrations in order.
func Migrations() ([]Migration, error) {
	return loadMigrations(migrationFS, "migrations")
}

func loadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		if !ok {
			return nil, fmt.Errorf("migration %q: name must be NNNN_name.sql", name)
		}
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: bad version", name)
		}
		b, err := fs.ReadFile(fsys, dir+"/"+name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %q: versions must be 1..n without gaps", m.Name)
		}
	}
	return out, nil
}

// LatestVersion is the schema version this binary writes.
func LatestVersion() int {
	ms, err := Migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	if readOnly {
		q.Add("mode", "ro")
	} else {
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	q.Add("_txlock", "immediate")
	return "file:" + uriPath.Replace(path) + "?" + q.Encode()
}

// uriPath escapes what a file: URI would read as its query or fragment (and the escape
// itself), so a data directory named "C# notes" or "what?" opens its own database, not
// one at the path cut short there.
var uriPath = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")

// Open opens (creating if needed) the database in dataDir and migrates it to the latest
// version. A database from a newer Cairn gives apperr DBTooNew and is left untouched.
func Open(ctx context.Context, dataDir string) (*DB, error) {
	return open(ctx, filepath.Join(dataDir, FileName), migrationFS, "migrations")
}

// OpenPath is Open for an explicit file, used by tests and tools.
func OpenPath(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, migrationFS, "migrations")
}

func open(ctx context.Context, path string, fsys fs.FS, dir string) (*DB, error) {
	ms, err := loadMigrations(fsys, dir)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.DBMigrateFailed, "load migrations").WithParam("migration", "embedded migrations")
	}
	latest := 0
	if len(ms) > 0 {
		latest = ms[len(ms)-1].Version
	}
	if _, err := os.Stat(path); err == nil {
		// Look before we write anything: a newer schema must stay byte-for-byte as it is.
		v, err := readVersion(ctx, path)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.DBOpenFailed, "open database %s", path).WithParam("path", path)
		}
		if v > latest {
			return nil, apperr.New(apperr.DBTooNew, "database %s has schema version %d; this Cairn knows up to %d", path, v, latest).
				WithParam("path", path).WithParam("version", v).WithParam("supported", latest)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, apperr.Wrap(err, apperr.DBOpenFailed, "stat database").WithParam("path", path)
	}
	sqldb, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.DBOpenFailed, "open database").WithParam("path", path)
	}
	if err := sqldb.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, apperr.Wrap(err, apperr.DBOpenFailed, "open database").WithParam("path", path)
	}
	db := &DB{DB: sqldb, Path: path}
	if err := db.migrate(ctx, ms); err != nil {
		sqldb.Close()
		return nil, err
	}
	return db, nil
}

func readVersion(ctx context.Context, path string) (int, error) {
	ro, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return 0, err
	}
	defer ro.Close()
	var v int
	if err := ro.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, err
	}
	return v, nil
}

// Version is the schema version of the open database.
func (db *DB) Version(ctx context.Context) (int, error) {
	var v int
	err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

func (db *DB) migrate(ctx context.Context, ms []Migration) error {
	cur, err := db.Version(ctx)
	if err != nil {
		return apperr.Wrap(err, apperr.DBMigrateFailed, "read schema version").WithParam("migration", "user_version")
	}
	for _, m := range ms {
		if m.Version <= cur {
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return apperr.Wrap(err, apperr.DBMigrateFailed, "begin migration %s", m.Name).WithParam("migration", m.Name)
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			tx.Rollback()
			return apperr.Wrap(err, apperr.DBMigrateFailed, "migration %s", m.Name).WithParam("migration", m.Name)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
			tx.Rollback()
			return apperr.Wrap(err, apperr.DBMigrateFailed, "set version %d", m.Version).WithParam("migration", m.Name)
		}
		if err := tx.Commit(); err != nil {
			return apperr.Wrap(err, apperr.DBMigrateFailed, "commit migration %s", m.Name).WithParam("migration", m.Name)
		}
	}
	return nil
}

// Tx runs fn in one transaction, committing when it returns nil.
func (db *DB) Tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

package transfer

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/store"
)

// Backup archive: a zip with manifest.json first, the database snapshot, the data
// directory's files, and keys.json (sealed) only when asked.
const (
	BackupFormat  = "cairn.backup"
	BackupVersion = 1
	manifestName  = "manifest.json"
	dbName        = "cairn.db"
	keysName      = "keys.sealed.json"
)

// Manifest describes a backup: which schema its database has (a restore refuses a newer
// one) and whether it carries keys.
type Manifest struct {
	Format    string `json:"format"`
	Version   int    `json:"version"`
	Schema    int    `json:"schema"`
	App       string `json:"app,omitempty"`
	CreatedAt int64  `json:"createdAt"`
	WithKeys  bool   `json:"withKeys"`
	Files     int    `json:"files"`
}

// BackupOptions: keys go in only with WithKeys, and then sealed with Passphrase.
type BackupOptions struct {
	WithKeys   bool   `json:"withKeys"`
	Passphrase string `json:"passphrase,omitempty"`
}

// Keys is what a backup reads of the secret store (*secrets.Store).
type Keys interface {
	Snapshot(ctx context.Context) (secrets.Snapshot, error)
	Get(name string) (string, bool, error)
}

// skipped are the data directory's entries a backup leaves out: the live database (its
// snapshot goes in instead), the owner's lock, file and socket, logs, and the file
// fallback of the secret store (keys go in only sealed).
func skipped(rel string) bool {
	switch rel {
	case "cairn.db", "cairn.db-wal", "cairn.db-shm", "cairn.db-journal", "cairn.lock", "owner.json", "owner.json.tmp", "cairn.sock", secrets.FileName, "logs":
		return true
	}
	return strings.HasPrefix(rel, "logs/") || rel == "kb/uploads" || strings.HasPrefix(rel, "kb/uploads/") // half-sent uploads
}

// Backup writes a backup of dataDir to w: a consistent snapshot of the database by
// VACUUM INTO (never a copy of the live file, which may be mid-transaction), the other
// files, and the keys only when asked.
func Backup(ctx context.Context, db *store.DB, dataDir string, keys Keys, app string, opt BackupOptions, w io.Writer) (Manifest, error) {
	if opt.WithKeys && opt.Passphrase == "" {
		return Manifest{}, apperr.New(apperr.BackupPassphraseRequired, "backup with keys needs a passphrase")
	}
	fail := func(err error) (Manifest, error) {
		return Manifest{}, apperr.Wrap(err, apperr.BackupFailed, "backup").WithParam("message", err.Error())
	}
	tmp, err := os.MkdirTemp("", "cairn-backup-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	snap := filepath.Join(tmp, dbName)
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", snap); err != nil {
		return fail(fmt.Errorf("snapshot the database: %w", err))
	}
	schema, err := db.Version(ctx)
	if err != nil {
		return fail(err)
	}
	var files []string
	err = filepath.WalkDir(dataDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dataDir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if skipped(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	m := Manifest{Format: BackupFormat, Version: BackupVersion, Schema: schema, App: app, CreatedAt: time.Now().UnixMilli(), WithKeys: opt.WithKeys, Files: len(files)}
	var sealedKeys []byte
	if opt.WithKeys {
		if sealedKeys, err = readKeys(ctx, keys, opt.Passphrase); err != nil {
			return fail(err)
		}
	}
	zw := zip.NewWriter(w)
	mb, _ := json.MarshalIndent(m, "", "  ")
	if err := zipBytes(zw, manifestName, mb); err != nil {
		return fail(err)
	}
	if err := zipFile(zw, dbName, snap); err != nil {
		return fail(err)
	}
	for _, rel := range files {
		if err := zipFile(zw, "data/"+rel, filepath.Join(dataDir, filepath.FromSlash(rel))); err != nil {
			return fail(err)
		}
	}
	if sealedKeys != nil {
		if err := zipBytes(zw, keysName, sealedKeys); err != nil {
			return fail(err)
		}
	}
	if err := zw.Close(); err != nil {
		return fail(err)
	}
	return m, nil
}

// readKeys reads every stored key's value and seals them with the passphrase.
func readKeys(ctx context.Context, keys Keys, passphrase string) ([]byte, error) {
	snap, err := keys.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	vals := map[string]string{}
	for _, st := range snap.Secrets {
		if !st.Set {
			continue
		}
		v, ok, err := keys.Get(st.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			vals[st.Name] = v
		}
	}
	return sealKeys(vals, passphrase)
}

func zipBytes(zw *zip.Writer, name string, b []byte) error {
	w, err := zw.Create(name)
	if err == nil {
		_, err = w.Write(b)
	}
	return err
}

func zipFile(zw *zip.Writer, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := zw.Create(name)
	if err == nil {
		_, err = io.Copy(w, f)
	}
	return err
}

// WriteBackup writes a backup to path: into a temporary file beside it (0600, it may hold
// the sealed keys), renamed over path only once complete.
func WriteBackup(ctx context.Context, db *store.DB, dataDir string, keys Keys, app string, opt BackupOptions, path string) (Manifest, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".part-")
	if err != nil {
		return Manifest{}, apperr.Wrap(err, apperr.BackupFailed, "backup").WithParam("message", err.Error())
	}
	defer os.Remove(f.Name())
	m, err := Backup(ctx, db, dataDir, keys, app, opt, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = apperr.Wrap(cerr, apperr.BackupFailed, "backup").WithParam("message", cerr.Error())
	}
	if err != nil {
		return Manifest{}, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return Manifest{}, apperr.Wrap(err, apperr.BackupFailed, "backup").WithParam("message", err.Error())
	}
	return m, nil
}

// ReadManifest reads a backup's manifest (to ask for a passphrase only when it has keys).
func ReadManifest(file string) (Manifest, error) {
	name := filepath.Base(file)
	zr, err := zip.OpenReader(file)
	if err != nil {
		return Manifest{}, corrupt(name, errText(err))
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != manifestName {
			continue
		}
		b, err := readEntry(f)
		var m Manifest
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			return Manifest{}, corrupt(name, err.Error())
		}
		return m, nil
	}
	return Manifest{}, corrupt(name, "it has no manifest")
}

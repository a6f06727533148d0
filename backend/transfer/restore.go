package transfer

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/store"
)

// RestoreOptions: the passphrase opens the keys of a backup that has them. Secrets is how
// keys are stored ("" = as Cairn decides, "file" for the fallback file; CAIRN_SECRETS).
type RestoreOptions struct {
	Passphrase string
	Secrets    string
}

// RestoreReport says what a restore put back.
type RestoreReport struct {
	Manifest Manifest `json:"manifest"`
	Keys     int      `json:"keys"`
	DataDir  string   `json:"dataDir"`
}

// Restore replaces dataDir with the backup in file. It holds the directory as its owner
// for the whole run (refused while the desktop app or serve owns it), checks everything
// before it changes anything — the zip's every entry (CRC), the manifest, the schema
// (refused when newer than this Cairn's), the database's integrity, the keys'
// passphrase — by unpacking into a new directory beside dataDir, and only then swaps the
// two. A failure before the swap leaves dataDir as it was.
func Restore(ctx context.Context, file, dataDir string, opt RestoreOptions) (RestoreReport, error) {
	name := filepath.Base(file)
	data, err := os.ReadFile(file)
	if err != nil {
		return RestoreReport{}, corrupt(name, errText(err))
	}
	parent := filepath.Dir(filepath.Clean(dataDir))
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return RestoreReport{}, restoreFailed(dataDir, err)
	}
	o, err := owner.Claim(ctx, dataDir, "restore", 0, nil)
	if err != nil {
		var owned *owner.OwnedError
		if errors.As(err, &owned) {
			owned.Client.Close()
			return RestoreReport{}, apperr.New(apperr.RestoreOwnerRunning, "restore: %s owns %s", owned.Info.Describe(), dataDir).
				WithParam("owner", owned.Info.Describe()).WithParam("path", dataDir)
		}
		return RestoreReport{}, err
	}
	defer o.Close()
	staged, err := os.MkdirTemp(parent, "."+filepath.Base(dataDir)+".restore-")
	if err != nil {
		return RestoreReport{}, restoreFailed(dataDir, err)
	}
	defer os.RemoveAll(staged) // gone after the swap: renamed into place
	m, keys, err := unpack(ctx, name, data, staged, opt.Passphrase, false)
	if err != nil {
		return RestoreReport{}, err
	}
	if err := swap(dataDir, staged); err != nil {
		return RestoreReport{}, restoreFailed(dataDir, err)
	}
	rep := RestoreReport{Manifest: m, DataDir: dataDir}
	if len(keys) > 0 {
		n, err := putKeys(ctx, dataDir, keys, opt.Secrets)
		rep.Keys = n
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func corrupt(name, why string) *apperr.Error {
	return apperr.New(apperr.BackupCorrupt, "backup %s: %s", name, why).WithParam("file", name).WithParam("message", why)
}

func restoreFailed(dir string, err error) *apperr.Error {
	return apperr.Wrap(err, apperr.RestoreFailed, "restore into %s", dir).WithParam("path", dir).WithParam("message", errText(err))
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// unpack checks a backup and writes it into dir (empty): the database, the files, and
// returns the opened keys (none with skipKeys).
func unpack(ctx context.Context, name string, data []byte, dir, passphrase string, skipKeys bool) (Manifest, map[string]string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Manifest{}, nil, corrupt(name, err.Error())
	}
	var m Manifest
	var sealedKeys []byte
	gotDB := false
	for _, f := range zr.File {
		b, err := readEntry(f)
		if err != nil {
			return Manifest{}, nil, corrupt(name, f.Name+": "+err.Error())
		}
		switch {
		case f.Name == manifestName:
			if err := json.Unmarshal(b, &m); err != nil {
				return Manifest{}, nil, corrupt(name, "manifest: "+err.Error())
			}
		case f.Name == keysName:
			sealedKeys = b
		case f.Name == dbName:
			gotDB = true
			err = writeUnder(dir, dbName, b)
		case strings.HasPrefix(f.Name, "data/"):
			err = writeUnder(dir, strings.TrimPrefix(f.Name, "data/"), b)
		}
		if err != nil {
			return Manifest{}, nil, corrupt(name, f.Name+": "+err.Error())
		}
	}
	if m.Format != BackupFormat || !gotDB {
		return Manifest{}, nil, corrupt(name, "it is not a Cairn backup (no manifest or database)")
	}
	if m.Version > BackupVersion || m.Schema > store.LatestVersion() {
		return Manifest{}, nil, apperr.New(apperr.BackupNewer, "backup %s: schema %d, version %d", name, m.Schema, m.Version).
			WithParam("file", name).WithParam("version", m.Schema).WithParam("max", store.LatestVersion())
	}
	if err := checkDB(ctx, dir); err != nil {
		return Manifest{}, nil, corrupt(name, err.Error())
	}
	if sealedKeys == nil || skipKeys {
		return m, nil, nil
	}
	if passphrase == "" {
		return Manifest{}, nil, apperr.New(apperr.BackupPassphraseRequired, "backup %s has keys", name)
	}
	keys, err := openKeys(sealedKeys, passphrase)
	if err != nil {
		return Manifest{}, nil, apperr.New(apperr.BackupPassphraseWrong, "backup %s: %v", name, err).WithParam("file", name)
	}
	return m, keys, nil
}

// maxEntry bounds one entry of a backup as it inflates.
const maxEntry = 8 << 30

func readEntry(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxEntry+1)) // a wrong CRC is an error at EOF
	if err == nil && len(b) > maxEntry {
		err = fmt.Errorf("inflates past 8 GiB")
	}
	return b, err
}

// writeUnder writes rel (slash-separated, from the zip) under dir, refusing any name
// that would leave it.
func writeUnder(dir, rel string, b []byte) error {
	clean := path.Clean("/" + rel)[1:]
	if clean == "" || clean != rel || strings.Contains(rel, "\\") {
		return fmt.Errorf("the name %s leaves the data directory", apperr.Quote(rel))
	}
	dst := filepath.Join(dir, filepath.FromSlash(clean))
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o600)
}

// checkDB opens the unpacked database (which migrates an older one to this Cairn's
// schema) and runs SQLite's integrity check.
func checkDB(ctx context.Context, dir string) error {
	db, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return fmt.Errorf("the database fails its integrity check: %s", res)
	}
	return nil
}

// swap puts staged where dir is: dir moves aside first and is removed once staged is in
// place (or put back when that fails). The key file of the secret store's fallback moves
// along when the backup brings none, so a restore without keys keeps the keys there were.
func swap(dir, staged string) error {
	old := ""
	if _, err := os.Stat(dir); err == nil {
		keep := filepath.Join(staged, secrets.FileName)
		if _, err := os.Stat(keep); errors.Is(err, os.ErrNotExist) {
			if b, err := os.ReadFile(filepath.Join(dir, secrets.FileName)); err == nil {
				if err := os.WriteFile(keep, b, 0o600); err != nil {
					return err
				}
			}
		}
		old = fmt.Sprintf("%s.before-restore-%d", dir, time.Now().UnixNano())
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(staged, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return nil
}

// putKeys stores the backup's keys in the restored directory's secret store (the
// keyring's entries are per data directory).
func putKeys(ctx context.Context, dir string, keys map[string]string, force string) (int, error) {
	db, err := store.Open(ctx, dir)
	if err != nil {
		return 0, restoreFailed(dir, err)
	}
	defer db.Close()
	st := secrets.Open(ctx, dir, db, events.NewBus(), secrets.Options{Force: force})
	n := 0
	for name, v := range keys {
		if err := st.Set(ctx, name, v); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

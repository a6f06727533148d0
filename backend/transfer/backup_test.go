package transfer

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/store"
)

// backupOf makes a data directory with a conversation, a setting, a key and a KB file,
// and returns its backup (with keys when passphrase is set).
func backupOf(t *testing.T, passphrase string) (*dataDir, []byte) {
	t.Helper()
	ctx := context.Background()
	a := newDir(t)
	seed(t, a)
	if _, err := settings.New(a.db, events.NewBus()).Set(ctx, "general.theme", "dark"); err != nil {
		t.Fatal(err)
	}
	keys := secrets.Open(ctx, a.dir, a.db, events.NewBus(), secrets.Options{Force: secrets.BackendFile})
	if err := keys.Set(ctx, "provider.p1.apiKey", "sk-restored-0123456789"); err != nil {
		t.Fatal(err)
	}
	if err := writeUnder(a.dir, "kb/blobs/ab/abcdef", []byte("a KB file")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	m, err := Backup(ctx, a.db, a.dir, keys, "Cairn test", BackupOptions{WithKeys: passphrase != "", Passphrase: passphrase}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if m.Schema != store.LatestVersion() || m.WithKeys != (passphrase != "") {
		t.Fatalf("manifest %+v", m)
	}
	return a, buf.Bytes()
}

func writeBackup(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "backup.zip")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBackupRestoreIntoNewDir: a backup with keys restored into a new data directory has
// the conversation with its files, the settings, the KB file and the key; the live
// database's files and the plain key file are not in the archive.
func TestBackupRestoreIntoNewDir(t *testing.T) {
	ctx := context.Background()
	_, data := backupOf(t, "correct horse")
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == "data/"+secrets.FileName || f.Name == "data/cairn.db-wal" || f.Name == "data/cairn.lock" {
			t.Fatalf("the backup holds %s", f.Name)
		}
		if b, _ := readEntry(f); bytes.Contains(b, []byte("sk-restored-0123456789")) {
			t.Fatalf("%s holds the key in the clear", f.Name)
		}
	}
	dir := filepath.Join(t.TempDir(), "new", "cairn")
	rep, err := Restore(ctx, writeBackup(t, data), dir, RestoreOptions{Passphrase: "correct horse", Secrets: secrets.BackendFile})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Keys != 1 {
		t.Fatalf("report %+v", rep)
	}
	b := openDir(t, dir)
	snap, err := b.chat.GetSession(ctx, "sess0001")
	if err != nil || len(snap.Messages) != 2 || snap.Messages[1].Parts[3].Text != "Here it is." {
		t.Fatalf("conversation %+v %v", snap, err)
	}
	if got := settings.New(b.db, events.NewBus()).String(ctx, "general.theme"); got != "dark" {
		t.Fatalf("theme %q", got)
	}
	if kb, err := os.ReadFile(filepath.Join(dir, "kb", "blobs", "ab", "abcdef")); err != nil || string(kb) != "a KB file" {
		t.Fatalf("kb file %q %v", kb, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tool-images", "sess0001", "shot.png")); err != nil {
		t.Fatal(err)
	}
	v, ok, err := secrets.Open(ctx, dir, b.db, events.NewBus(), secrets.Options{Force: secrets.BackendFile}).Get("provider.p1.apiKey")
	if err != nil || !ok || v != "sk-restored-0123456789" {
		t.Fatalf("key %q %v %v", v, ok, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*restore-*"))
	if len(left) != 0 {
		t.Fatalf("staging left behind: %v", left)
	}
}

// TestRestoreRefuses: a newer backup, a corrupted one, a wrong or missing passphrase and
// a directory with an owner are refused, and the directory restored into is unchanged.
func TestRestoreRefuses(t *testing.T) {
	ctx := context.Background()
	_, data := backupOf(t, "pw")
	corrupted := bytes.Clone(data)
	for i := len(corrupted) / 3; i < len(corrupted)/3+64; i++ {
		corrupted[i] ^= 0xff
	}
	newer := rewriteManifest(t, data, `{"format":"cairn.backup","version":1,"schema":9999,"withKeys":false}`)
	for _, tc := range []struct {
		name  string
		data  []byte
		pass  string
		owned bool
		code  apperr.Code
	}{
		{"newer schema", newer, "", false, apperr.BackupNewer},
		{"corrupted", corrupted, "pw", false, apperr.BackupCorrupt},
		{"not a zip", []byte("hello"), "pw", false, apperr.BackupCorrupt},
		{"wrong passphrase", data, "nope", false, apperr.BackupPassphraseWrong},
		{"no passphrase", data, "", false, apperr.BackupPassphraseRequired},
		{"owner running", data, "pw", true, apperr.DataDirBusy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := newDir(t)
			if err := writeUnder(target.dir, "marker.txt", []byte("before")); err != nil {
				t.Fatal(err)
			}
			if tc.owned {
				o, err := owner.Claim(ctx, target.dir, owner.KindServe, time.Second, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer o.Close()
			}
			_, err := Restore(ctx, writeBackup(t, tc.data), target.dir, RestoreOptions{Passphrase: tc.pass, Secrets: secrets.BackendFile})
			if !apperr.Is(err, tc.code) {
				t.Fatalf("err %v, want %s", err, tc.code)
			}
			if b, err := os.ReadFile(filepath.Join(target.dir, "marker.txt")); err != nil || string(b) != "before" {
				t.Fatalf("the directory changed: %q %v", b, err)
			}
			var n int
			target.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sessions").Scan(&n)
			if n != 0 {
				t.Fatalf("sessions %d", n)
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(target.dir), ".*restore-*"))
			if len(left) != 0 {
				t.Fatalf("staging left behind: %v", left)
			}
		})
	}
}

// rewriteManifest is the backup with another manifest.json.
func rewriteManifest(t *testing.T, data []byte, manifest string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		b, err := readEntry(f)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == manifestName {
			b = []byte(manifest)
		}
		if err := zipBytes(zw, f.Name, b); err != nil {
			t.Fatal(err)
		}
	}
	zw.Close()
	return buf.Bytes()
}

// TestStagedRestore: a window's restore is checked at once (a corrupted backup stages
// nothing), waits beside the directory, and replaces it whole when applied; the keys in
// the fallback file stay.
func TestStagedRestore(t *testing.T) {
	ctx := context.Background()
	_, data := backupOf(t, "pw")
	target := newDir(t)
	if err := writeUnder(target.dir, "marker.txt", []byte("before")); err != nil {
		t.Fatal(err)
	}
	if err := writeUnder(target.dir, secrets.FileName, []byte(`{"x":"kept"}`)); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(data)
	bad[len(bad)/2] ^= 0xff
	if _, err := StageRestore(ctx, "bad.zip", bad, target.dir); !apperr.Is(err, apperr.BackupCorrupt) || HasPendingRestore(target.dir) {
		t.Fatalf("corrupted: %v, pending %v", err, HasPendingRestore(target.dir))
	}
	if _, err := StageRestore(ctx, "good.zip", data, target.dir); err != nil || !HasPendingRestore(target.dir) {
		t.Fatalf("stage: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(target.dir, "marker.txt")); string(b) != "before" {
		t.Fatal("staging changed the directory")
	}
	target.chat.Close()
	target.db.Close()
	applied, err := ApplyPending(target.dir)
	if err != nil || !applied || HasPendingRestore(target.dir) {
		t.Fatalf("apply: %v %v", applied, err)
	}
	if _, err := os.Stat(filepath.Join(target.dir, "marker.txt")); !os.IsNotExist(err) {
		t.Fatal("the old directory's file is still there")
	}
	if b, _ := os.ReadFile(filepath.Join(target.dir, secrets.FileName)); string(b) != `{"x":"kept"}` {
		t.Fatalf("keys file %q", b)
	}
	b := openDir(t, target.dir)
	if _, err := b.chat.GetSession(ctx, "sess0001"); err != nil {
		t.Fatal(err)
	}
	if again, err := ApplyPending(target.dir); again || err != nil {
		t.Fatalf("applied twice: %v %v", again, err)
	}
}

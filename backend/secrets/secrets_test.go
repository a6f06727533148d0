package secrets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/sessionbus"
	"github.com/cairn-app/cairn/backend/store"
)

func open(t *testing.T, force string) (*Store, *events.Bus, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	bus := events.NewBus()
	return Open(context.Background(), dir, db, bus, Options{Force: force, Known: testKnown}), bus, dir
}

// testKnown stands for the capabilities' secret names (service passes theirs).
var testKnown = []string{"websearch.tavily", "websearch.bing", "maps.amap", "embeddings.apiKey"}

// exercise runs the same behaviour checks against any backend.
func exercise(t *testing.T, s *Store, bus *events.Bus, dir string) {
	ctx := context.Background()
	const value = "sk-test-1234567890abcdWXYZ"
	sub := bus.Subscribe(16)
	defer sub.Close()
	if err := s.Set(ctx, "websearch.tavily", value); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Get("websearch.tavily")
	if err != nil || !ok || got != value {
		t.Fatalf("get = %q %v %v", got, ok, err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, st := range snap.Secrets {
		if st.Name == "websearch.tavily" {
			found = st.Set && st.Last4 == "WXYZ"
		}
	}
	if !found {
		t.Fatalf("snapshot %+v", snap)
	}
	ev := <-sub.C
	if ev.Type != events.TypeSecretsChanged || bytes.Contains(ev.Data, []byte(value)) || bytes.Contains(ev.Data, []byte("1234567890")) {
		t.Fatalf("event leaks the secret or is wrong: %s", ev.Data)
	}
	// The database never holds the value.
	for _, name := range []string{store.FileName, store.FileName + "-wal"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if bytes.Contains(b, []byte(value)) {
			t.Fatalf("%s contains the secret", name)
		}
	}
	if err := s.Delete(ctx, "websearch.tavily"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("websearch.tavily"); ok {
		t.Fatal("still set after delete")
	}
	if err := s.Delete(ctx, "websearch.tavily"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if err := s.Set(ctx, "bad name!", "x"); !apperr.Is(err, apperr.SecretNameBad) {
		t.Fatalf("bad name: %v", err)
	}
	if err := s.Set(ctx, "websearch.bing", ""); !apperr.Is(err, apperr.SecretEmpty) {
		t.Fatalf("empty: %v", err)
	}
}

func TestFileBackend(t *testing.T) {
	s, bus, dir := open(t, BackendFile)
	if kind, _ := s.Backend(); kind != BackendFile {
		t.Fatalf("backend %s", kind)
	}
	exercise(t, s, bus, dir)
	if err := s.Set(context.Background(), "maps.amap", "amap-key-0000"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
}

func TestFileBackendCorruptFileNotOverwritten(t *testing.T) {
	s, _, dir := open(t, BackendFile)
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := s.Set(context.Background(), "maps.amap", "value-123456")
	if !apperr.Is(err, apperr.SecretStoreFail) {
		t.Fatalf("err = %v", err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "{broken" {
		t.Fatal("corrupt secrets file was overwritten, losing whatever it held")
	}
}

// TestKeyringBackend runs against the real Secret Service when the test environment has
// one (make test starts gnome-keyring-daemon inside dbus-run-session and sets
// CAIRN_TEST_KEYRING=1); otherwise the probe must fall back to the file, honestly.
func TestKeyringBackend(t *testing.T) {
	s, bus, dir := open(t, "")
	kind, note := s.Backend()
	if os.Getenv("CAIRN_TEST_KEYRING") == "1" {
		if kind != BackendKeyring {
			t.Fatalf("CAIRN_TEST_KEYRING=1 but the probe chose %s: %s", kind, note)
		}
		exercise(t, s, bus, dir)
		if _, err := os.Stat(filepath.Join(dir, FileName)); err == nil {
			t.Fatal("keyring backend wrote the fallback file")
		}
		return
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" && kind != BackendFile {
		t.Fatalf("no session bus but backend %s", kind)
	}
	if kind == BackendFile && note == "" {
		t.Fatal("fallback without saying why")
	}
	exercise(t, s, bus, dir)
}

func TestMask(t *testing.T) {
	tests := map[string]string{"": "", "short": "", "12345678": "5678", "密钥密钥密钥密钥": "密钥密钥"}
	for in, want := range tests {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNoSessionBusFallsBackAtOnce: with no D-Bus session bus Cairn neither starts one
// (godbus would run dbus-launch) nor waits for the probe; it keeps keys in the file and
// says why.
func TestNoSessionBusFallsBackAtOnce(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Fatalf("the keyring of %s does not use D-Bus; this test is for the others", runtime.GOOS)
	}
	dir := t.TempDir()
	db, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	asked := 0
	none := func() (string, error) { asked++; return "", sessionbus.ErrNone }
	bus := events.NewBus()
	s := Open(context.Background(), dir, db, bus, Options{sessionBus: none})
	kind, note := s.Backend()
	if kind != BackendFile || asked != 1 || !strings.Contains(note, "D-Bus session bus") {
		t.Fatalf("backend %q note %q (asked %d), want the file with the reason", kind, note, asked)
	}
	exercise(t, s, bus, dir)
}

// TestCheckKnown: Settings and `cairn secrets` may set and delete only the known keys; a
// provider's key, MCP's credentials and a mistyped name are refused with the known list,
// and the snapshot marks which entries are theirs.
func TestCheckKnown(t *testing.T) {
	s, _, _ := open(t, BackendFile)
	tests := []struct {
		name string
		ok   bool
	}{
		{"websearch.tavily", true},
		{"maps.amap", true},
		{"embeddings.apiKey", true},
		{"provider.p1.apiKey", false},
		{"mcp.srv.oauth.token", false},
		{"websearch.tavilly", false},
		{"", false},
	}
	for _, tt := range tests {
		err := s.CheckKnown(tt.name)
		if tt.ok != (err == nil) {
			t.Fatalf("CheckKnown(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err == nil {
			continue
		}
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != apperr.SecretNotKnown || ae.Params["name"] != tt.name || !strings.Contains(fmt.Sprint(ae.Params["known"]), "websearch.tavily") {
			t.Fatalf("CheckKnown(%q) = %#v", tt.name, err)
		}
	}

	ctx := context.Background()
	if err := s.Set(ctx, "provider.p1.apiKey", "sk-provider-key-0001"); err != nil { // the provider service's own path
		t.Fatal(err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, st := range snap.Secrets {
		known[st.Name] = st.Known
	}
	if v, listed := known["provider.p1.apiKey"]; !listed || v {
		t.Fatalf("provider key listed=%v known=%v, want listed and not known", listed, v)
	}
	if !known["websearch.tavily"] {
		t.Fatalf("websearch.tavily not marked known: %+v", snap.Secrets)
	}
}

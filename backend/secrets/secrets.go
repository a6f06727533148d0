// Package secrets keeps API keys in the OS keyring (go-keyring: Secret Service, Keychain,
// Credential Manager). Where no keyring answers it falls back to a 0600 file in the data
// directory and says so. Values never reach SQLite, logs, events or a window: those see
// set / not set and the last four characters, and the redactor (Options.Redact) learns
// every value so that an error that echoes one is cleaned before it goes anywhere.
package secrets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/privfile"
	"github.com/cairn-app/cairn/backend/redact"
	"github.com/cairn-app/cairn/backend/sessionbus"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/zalando/go-keyring"
)

// Backend names shown in Settings and doctor.
const (
	BackendKeyring = "keyring"
	BackendFile    = "file"
)

// FileName is the fallback file in the data directory.
const FileName = "secrets.json"

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// ValidName reports whether name can be used as a secret name.
func ValidName(name string) bool { return nameRE.MatchString(name) }

// Known lists the secrets that are not a provider's or an MCP server's: the names the
// capabilities read (Options.Known), offered in Settings and `cairn secrets`.
func (s *Store) Known() []string { return slices.Clone(s.known) }

// IsKnown reports whether name is one of Known.
func (s *Store) IsKnown(name string) bool { return slices.Contains(s.known, name) }

// CheckKnown refuses a name that is not one of Known. Settings (SetSecret, DeleteSecret)
// and `cairn secrets` set and delete only those: a provider's key is kept with its provider
// and MCP's credentials with their server, so the generic paths can neither overwrite nor
// delete them, and a mistyped name is an error instead of a key nothing reads.
func (s *Store) CheckKnown(name string) error {
	if s.IsKnown(name) {
		return nil
	}
	return apperr.New(apperr.SecretNotKnown, "%q is not a secret Settings or `cairn secrets` manage", name).
		WithParam("name", name).WithParam("known", strings.Join(s.known, ", "))
}

// backend stores raw values.
type backend interface {
	get(name string) (string, error) // errNotFound when absent
	set(name, value string) error
	del(name string) error
}

var errNotFound = errors.New("secret not found")

// Store is the secret store of one data directory.
type Store struct {
	mu      sync.Mutex
	be      backend
	kind    string
	note    string
	noteKey string // names note's text for the windows (about.keyringNote.<key>)
	noteErr string // the error inside note, shown as it is
	db      *store.DB
	bus     *events.Bus
	dataDir string
	red     *redact.Set
	known   []string // Options.Known
}

// Options choose the backend; Force is "" (probe the keyring), "keyring" or "file".
type Options struct {
	Force        string
	ProbeTimeout time.Duration
	// Redact learns every value the store holds (read in the background at Open, then on
	// each Set), so that errors, logs and events can leave them out; nil = none.
	Redact *redact.Set
	// Known are the secret names the capabilities read (see Store.Known).
	Known []string

	sessionBus func() (string, error) // sessionbus.Address; tests replace it
}

// Open probes the OS keyring and falls back to the file.
func Open(ctx context.Context, dataDir string, db *store.DB, bus *events.Bus, opt Options) *Store {
	s := &Store{db: db, bus: bus, dataDir: dataDir, red: opt.Redact, known: slices.Clone(opt.Known)}
	service := "cairn:" + shortHash(dataDir)
	kr := keyringBackend{service: service}
	fb := &fileBackend{path: filepath.Join(dataDir, FileName)}
	switch opt.Force {
	case BackendFile:
		s.be, s.kind, s.note, s.noteKey = fb, BackendFile, "chosen with CAIRN_SECRETS=file", "forced"
	case BackendKeyring:
		s.be, s.kind = kr, BackendKeyring
	default:
		timeout := opt.ProbeTimeout
		if timeout == 0 {
			timeout = 3 * time.Second
		}
		if err := usesSessionBus(opt.sessionBus); err != nil {
			s.be, s.kind, s.note, s.noteKey, s.noteErr = fb, BackendFile, "no usable system keyring: "+err.Error(), "noSessionBus", err.Error()
		} else if err := probe(ctx, kr, timeout); err != nil {
			s.be, s.kind, s.note, s.noteKey, s.noteErr = fb, BackendFile, err.Error(), "probeFailed", err.Error()
		} else {
			s.be, s.kind = kr, BackendKeyring
		}
	}
	if s.red != nil {
		done := s.red.Loading()
		go func() {
			defer done()
			s.feedRedactor(context.WithoutCancel(ctx))
		}()
	}
	return s
}

// feedRedactor gives the redactor every value the store holds: the indexed names and the
// known ones. It runs in the background, since a keyring read takes a round trip each.
func (s *Store) feedRedactor(ctx context.Context) {
	names, err := s.indexed(ctx)
	if err != nil {
		return
	}
	for _, n := range s.known {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range names {
		if v, ok, err := s.Get(n); err == nil && ok {
			s.red.Put(n, v)
		}
	}
}

// usesSessionBus checks, where go-keyring speaks to the Secret Service over D-Bus, that a
// session bus exists: without one godbus would start a dbus-daemon (and D-Bus activation a
// gnome-keyring-daemon) that outlive cairn.
func usesSessionBus(find func() (string, error)) error {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return nil
	}
	if find == nil {
		find = sessionbus.Address
	}
	_, err := find()
	return err
}

func shortHash(s string) string {
	abs, err := filepath.Abs(s)
	if err == nil {
		s = abs
	}
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:12]
}

// probe writes, reads and deletes a throwaway item; a keyring that hangs counts as absent.
func probe(ctx context.Context, kr keyringBackend, timeout time.Duration) error {
	done := make(chan error, 1)
	go func() {
		name := fmt.Sprintf("probe-%d", time.Now().UnixNano())
		if err := kr.set(name, "probe"); err != nil {
			done <- err
			return
		}
		v, err := kr.get(name)
		_ = kr.del(name)
		if err == nil && v != "probe" {
			err = errors.New("keyring returned a different value")
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("no usable system keyring: %w", err)
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("system keyring did not answer within %s", timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Backend says where values are kept ("keyring" or "file") and, for the file, why.
func (s *Store) Backend() (kind, note string) { return s.kind, s.note }

// Get returns a secret's value; ok is false when it is not set.
func (s *Store) Get(name string) (value string, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.be.get(name)
	if errors.Is(err, errNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, apperr.Wrap(err, apperr.SecretStoreFail, "read secret %s", name).WithParam("backend", s.kind)
	}
	return v, true, nil
}

// Set stores a secret and broadcasts that the list changed (never the value).
func (s *Store) Set(ctx context.Context, name, value string) error {
	if !ValidName(name) {
		return apperr.New(apperr.SecretNameBad, "invalid secret name %q", name).WithParam("name", name)
	}
	if value == "" {
		return apperr.New(apperr.SecretEmpty, "empty secret %s", name)
	}
	s.mu.Lock()
	err := s.be.set(name, value)
	s.mu.Unlock()
	if err != nil {
		return apperr.Wrap(err, apperr.SecretStoreFail, "store secret %s", name).WithParam("backend", s.kind)
	}
	s.red.Put(name, value)
	if _, err := s.db.ExecContext(ctx, "INSERT INTO secret_index(name, updated_at) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET updated_at = excluded.updated_at", name, time.Now().UnixMilli()); err != nil {
		return apperr.Wrap(err, apperr.Internal, "index secret")
	}
	s.publish(ctx)
	return nil
}

// SetKnown is Set for one of Known only: what Settings and `cairn secrets` may write.
func (s *Store) SetKnown(ctx context.Context, name, value string) error {
	if err := s.CheckKnown(name); err != nil {
		return err
	}
	return s.Set(ctx, name, value)
}

// DeleteKnown is Delete for one of Known only.
func (s *Store) DeleteKnown(ctx context.Context, name string) error {
	if err := s.CheckKnown(name); err != nil {
		return err
	}
	return s.Delete(ctx, name)
}

// Delete removes a secret; deleting one that is not set is not an error.
func (s *Store) Delete(ctx context.Context, name string) error {
	s.mu.Lock()
	err := s.be.del(name)
	s.mu.Unlock()
	if err != nil && !errors.Is(err, errNotFound) {
		return apperr.Wrap(err, apperr.SecretStoreFail, "delete secret %s", name).WithParam("backend", s.kind)
	}
	s.red.Forget(name)
	if _, err := s.db.ExecContext(ctx, "DELETE FROM secret_index WHERE name = ?", name); err != nil {
		return apperr.Wrap(err, apperr.Internal, "unindex secret")
	}
	s.publish(ctx)
	return nil
}

// Status is what a window may know about a secret.
type Status struct {
	Name  string `json:"name"`
	Set   bool   `json:"set"`
	Last4 string `json:"last4,omitempty"`
	// Known: one of Known, set and deleted in Settings → Web search and `cairn secrets`;
	// the others (providers' keys, MCP credentials) are only listed for their sections.
	Known bool `json:"known"`
}

// NoteKeys lists every Snapshot.NoteKey; each has a text in every locale.
func NoteKeys() []string { return []string{"forced", "noSessionBus", "probeFailed"} }

// Snapshot is the secrets list for Settings.
type Snapshot struct {
	Seq              uint64 `json:"seq"`
	Backend          string `json:"backend"`
	KeyringAvailable bool   `json:"keyringAvailable"`
	Note             string `json:"note,omitempty"` // English, for the terminal
	// NoteKey names the note's text for the windows (about.keyringNote.<key>, one of
	// NoteKeys); NoteError is the error it quotes.
	NoteKey   string   `json:"noteKey,omitempty"`
	NoteError string   `json:"noteError,omitempty"`
	Secrets   []Status `json:"secrets"`
}

// Snapshot lists known and indexed secrets with set / not set and the last 4 characters.
func (s *Store) Snapshot(ctx context.Context) (Snapshot, error) {
	names := map[string]bool{}
	for _, n := range s.known {
		names[n] = true
	}
	indexed, err := s.indexed(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	for _, n := range indexed {
		names[n] = true
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	snap := Snapshot{Seq: s.bus.Seq(events.TopicSettings), Backend: s.kind, KeyringAvailable: s.kind == BackendKeyring,
		Note: s.note, NoteKey: s.noteKey, NoteError: s.noteErr}
	for _, n := range list {
		v, ok, err := s.Get(n)
		st := Status{Name: n, Set: ok && err == nil, Known: s.IsKnown(n)}
		if st.Set {
			st.Last4 = Mask(v)
		}
		snap.Secrets = append(snap.Secrets, st)
	}
	return snap, nil
}

// indexed lists the names in the secret index.
func (s *Store) indexed(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT name FROM secret_index")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list secrets")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			out = append(out, n)
		}
	}
	return out, rows.Err()
}

// Mask returns the last four characters of a long enough value, else nothing.
func Mask(v string) string {
	r := []rune(v)
	if len(r) < 8 {
		return ""
	}
	return string(r[len(r)-4:])
}

func (s *Store) publish(ctx context.Context) {
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return
	}
	s.bus.Publish(events.TopicSettings, events.TypeSecretsChanged, snap)
}

type keyringBackend struct{ service string }

func (k keyringBackend) get(name string) (string, error) {
	v, err := keyring.Get(k.service, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", errNotFound
	}
	return v, err
}
func (k keyringBackend) set(name, value string) error { return keyring.Set(k.service, name, value) }
func (k keyringBackend) del(name string) error {
	err := keyring.Delete(k.service, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return errNotFound
	}
	return err
}

// fileBackend is the 0600 JSON file used where no keyring answers.
type fileBackend struct{ path string }

func (f *fileBackend) load() (map[string]string, error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (left as it is): %w", f.path, err)
	}
	return m, nil
}

func (f *fileBackend) save(m map[string]string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return privfile.Write(f.path, b)
}

func (f *fileBackend) get(name string) (string, error) {
	m, err := f.load()
	if err != nil {
		return "", err
	}
	v, ok := m[name]
	if !ok {
		return "", errNotFound
	}
	return v, nil
}

func (f *fileBackend) set(name, value string) error {
	m, err := f.load()
	if err != nil {
		return err
	}
	m[name] = value
	return f.save(m)
}

func (f *fileBackend) del(name string) error {
	m, err := f.load()
	if err != nil {
		return err
	}
	if _, ok := m[name]; !ok {
		return errNotFound
	}
	delete(m, name)
	return f.save(m)
}

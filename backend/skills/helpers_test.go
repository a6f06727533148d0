package skills

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/store"
)

// fakeSettings is the settings the service reads, in memory.
type fakeSettings struct {
	mu sync.Mutex
	m  map[string]any
}

func (f *fakeSettings) get(key string) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[key]
}

func (f *fakeSettings) set(key string, v any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[key] = v
}

func (f *fakeSettings) String(_ context.Context, key string) string {
	s, _ := f.get(key).(string)
	return s
}
func (f *fakeSettings) Int(_ context.Context, key string) int {
	if n, ok := f.get(key).(int); ok {
		return n
	}
	return DefaultBudget
}
func (f *fakeSettings) Bool(_ context.Context, key string) bool {
	b, ok := f.get(key).(bool)
	return b || !ok
}

// fixture is a service over a temporary data directory and home, with a real database.
type fixture struct {
	t        *testing.T
	ctx      context.Context
	dataDir  string
	home     string
	db       *store.DB
	settings *fakeSettings
	bus      *events.Bus
	svc      *Service
}

func newFixture(t *testing.T, poll time.Duration) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{t: t, ctx: ctx, dataDir: t.TempDir(), home: t.TempDir(), settings: &fakeSettings{m: map[string]any{}}, bus: events.NewBus()}
	db, err := store.Open(ctx, f.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	f.db = db
	t.Cleanup(func() { db.Close() })
	return f
}

// start opens the service (after the test laid out its folders).
func (f *fixture) start(poll time.Duration) *Service {
	f.t.Helper()
	svc, err := New(f.ctx, Config{DataDir: f.dataDir, Home: f.home, DB: f.db.DB, Settings: f.settings, Bus: f.bus, Poll: poll})
	if err != nil {
		f.t.Fatal(err)
	}
	f.svc = svc
	f.t.Cleanup(func() { svc.Close() })
	return svc
}

// writeSkill writes dir/SKILL.md with a name and description, and extra files.
func writeSkill(t *testing.T, dir, name, desc, body string, files map[string]string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, FileName), "---\nname: "+name+"\ndescription: "+desc+"\n---\n"+body+"\n")
	for p, c := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), c)
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) session(id string) {
	f.t.Helper()
	if _, err := f.db.Exec("INSERT INTO sessions (id, kind, created_at, updated_at) VALUES (?, 'chat', 0, 0)", id); err != nil {
		f.t.Fatal(err)
	}
}

func names(list []Skill) string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name+"@"+string(s.Source))
	}
	return strings.Join(out, " ")
}

// eventually polls cond until it holds or a few seconds passed.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

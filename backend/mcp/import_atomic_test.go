package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// failingSecrets is memSecrets whose Set fails from the failAt-th call on (0: never).
type failingSecrets struct {
	*memSecrets
	calls, failAt int
}

func (f *failingSecrets) Set(ctx context.Context, name, value string) error {
	f.calls++
	if f.failAt > 0 && f.calls >= f.failAt {
		return errors.New("injected keyring failure")
	}
	return f.memSecrets.Set(ctx, name, value)
}

// importConfig is an mcpServers JSON of n stdio servers imp0…imp<n-1>, each with a
// secret env value, plus the extra entries given (already JSON: "name": {…}).
func importConfig(n int, extra ...string) string {
	var b strings.Builder
	b.WriteString(`{"mcpServers": {`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"imp%d": {"command": "node", "args": ["s%d.js"], "env": {"API_TOKEN": "tok-%08d"}}`, i, i, i)
	}
	for _, e := range extra {
		b.WriteString("," + e)
	}
	b.WriteString("}}")
	return b.String()
}

func countServers(t *testing.T, h *harness) int {
	t.Helper()
	var n int
	if err := h.cfg.DB.QueryRow("SELECT COUNT(*) FROM mcp_servers").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestImportIsAtomic: an import that fails half-way (a row the database refuses, the
// keyring failing, the caller giving up) stores none of its entries: no rows, no
// servers, no secrets, and a server it was updating keeps its config and secret.
func TestImportIsAtomic(t *testing.T) {
	sec := &failingSecrets{memSecrets: newMemSecrets()}
	h := newHarness(t, cold, func(c *Config) { c.Secrets = sec })
	ctx := context.Background()
	keep := h.save(Server{Name: "keep", Command: "node", Args: []string{"old.js"}, Env: []Var{{Name: "API_TOKEN", Value: "old-secret-1", Secret: true}}})
	key := secretKey(keep.ID, "env", "API_TOKEN")
	// The database refuses the server called "boom", which comes after the others.
	if _, err := h.cfg.DB.Exec(`CREATE TRIGGER boom BEFORE INSERT ON mcp_servers WHEN NEW.name = 'boom'
		BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	updateKeep := `"keep": {"command": "node", "args": ["new.js"], "env": {"API_TOKEN": "new-secret-2"}}`
	check := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			t.Fatal("the import succeeded")
		}
		if n := countServers(t, h); n != 1 {
			t.Fatalf("%d rows after a failed import, want only keep's", n)
		}
		snap, _ := h.m.Servers(ctx)
		if len(snap.Servers) != 1 {
			t.Fatalf("%d servers in the runtime", len(snap.Servers))
		}
		v, _ := h.m.View(ctx, keep.ID)
		if v.Args[0] != "old.js" {
			t.Fatalf("keep was changed: %+v", v.Server)
		}
		sec.mu.Lock()
		defer sec.mu.Unlock()
		if len(sec.m) != 1 || sec.m[key] != "old-secret-1" {
			t.Fatalf("secrets after a failed import: %v", sec.m)
		}
	}

	t.Run("a row fails", func(t *testing.T) {
		_, err := h.m.Import(ctx, []byte(importConfig(5, updateKeep, `"boom": {"command": "node"}`)))
		check(t, err)
	})
	if _, err := h.cfg.DB.Exec(`DROP TRIGGER boom`); err != nil {
		t.Fatal(err)
	}
	t.Run("the keyring fails", func(t *testing.T) {
		sec.calls, sec.failAt = 0, 4
		defer func() { sec.failAt = 0 }()
		_, err := h.m.Import(ctx, []byte(importConfig(5, updateKeep)))
		check(t, err)
	})
	t.Run("the caller gives up", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := h.m.Import(cctx, []byte(importConfig(5, updateKeep)))
		check(t, err)
	})
	t.Run("then it works", func(t *testing.T) {
		rep, err := h.m.Import(ctx, []byte(importConfig(5, updateKeep)))
		if err != nil || rep.Imported != 5 || rep.Updated != 1 || countServers(t, h) != 6 {
			t.Fatalf("%+v %v", rep, err)
		}
		if v, _, _ := sec.Get(key); v != "new-secret-2" {
			t.Fatalf("keep's secret %q", v)
		}
	})
}

// TestImportManyAtOnce: 1,000 entries are stored in one go (one registry update, in
// input order, in seconds); 1,001 are refused whole with their count.
func TestImportManyAtOnce(t *testing.T) {
	h := newHarness(t, cold)
	ctx := context.Background()
	_, err := h.m.Import(ctx, []byte(importConfig(MaxImportEntries+1)))
	ae := wantCode(t, err, apperr.MCPImportTooMany)
	if ae.Params["count"] != MaxImportEntries+1 || ae.Params["max"] != MaxImportEntries || countServers(t, h) != 0 {
		t.Fatalf("%+v, %d rows", ae.Params, countServers(t, h))
	}

	v := h.reg.Version()
	start := time.Now()
	rep, err := h.m.Import(ctx, []byte(importConfig(MaxImportEntries)))
	took := time.Since(start)
	if err != nil || rep.Imported != MaxImportEntries {
		t.Fatalf("%+v %v", rep.Imported, err)
	}
	if d := h.reg.Version() - v; d > 1 {
		t.Errorf("the registry was rebuilt %d times, want once", d)
	}
	if took > 20*time.Second {
		t.Errorf("importing %d entries took %s", MaxImportEntries, took)
	}
	snap, _ := h.m.Servers(ctx)
	for i, s := range snap.Servers {
		if s.Name != fmt.Sprintf("imp%d", i) {
			t.Fatalf("server %d is %s: not in input order", i, s.Name)
		}
	}
	t.Logf("%d entries imported in %s", MaxImportEntries, took)
}

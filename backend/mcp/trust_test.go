package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestTrustReadOnlyHints follows the per-server choice from where it is stored to the
// approval verdict: a server's read-only tool runs unasked (audited as "the server marks
// it read-only") while its hints are trusted, the default for a server the user adds;
// with trust off the same tool asks like any other, and plan mode no longer runs it. The
// choice survives a restart of Cairn and a save that does not mention it.
func TestTrustReadOnlyHints(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := newHarness(t, cold, func(c *Config) { c.DB = db })
	ap, err := approval.New(ctx, approval.Config{DB: db, Bus: h.bus, Home: dir, Tools: h.reg, Servers: h.m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ap.Close() })

	schema := map[string]any{"type": "object"}
	v := h.save(rawServer(t, "notes", []map[string]any{
		{"name": "peek", "description": "reads", "inputSchema": schema, "annotations": map[string]any{"readOnlyHint": true}},
	}))
	if v.TrustReadOnlyHints == nil || !*v.TrustReadOnlyHints {
		t.Fatalf("a server the user adds should trust its hints: %+v", v.TrustReadOnlyHints)
	}
	if _, err := h.m.RefreshTools(ctxT(t, 30*time.Second), v.ID); err != nil {
		t.Fatal(err)
	}
	wire := tools.MCPName(v.ID, "notes", "peek")
	check := func() tools.Decision {
		t.Helper()
		e, ok := h.reg.Lookup(wire)
		if !ok {
			t.Fatal("peek is not registered")
		}
		d, err := ap.Check(ctx, tools.PermissionRequest{Entry: e, Args: json.RawMessage(`{}`),
			Call: tools.Call{ID: "call-1", Name: wire, Arguments: `{}`}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	verdict := func(mode permission.Mode) permission.Verdict {
		t.Helper()
		res, err := ap.TestRule(ctx, approval.Sample{Tool: wire, Mode: mode})
		if err != nil || !res.Registered {
			t.Fatalf("%+v %v", res, err)
		}
		return res.Verdict
	}

	if d := check(); d.Behavior != tools.BehaviorAllow || d.Reason != "the server marks it read-only" {
		t.Fatalf("trusted: %+v", d)
	}
	page, err := ap.ListAudit(ctx, approval.AuditQuery{Tool: wire}, 10)
	if err != nil || len(page.Entries) != 1 {
		t.Fatalf("audit %+v %v", page, err)
	}
	if e := page.Entries[0]; e.Decision != approval.AuditAutoAllow || e.ReasonCode != "server_read_only" || e.Reason != "the server marks it read-only" {
		t.Fatalf("audit entry %+v", e)
	}
	if v := verdict(permission.ModePlan); v.Behavior != permission.Allow {
		t.Fatalf("plan mode, trusted: %+v", v)
	}

	off, err := h.m.SetTrustReadOnlyHints(ctx, v.ID, false)
	if err != nil || off.TrustReadOnlyHints == nil || *off.TrustReadOnlyHints {
		t.Fatalf("%+v %v", off.TrustReadOnlyHints, err)
	}
	if len(off.Tools) != 1 || off.Tools[0].ReadOnly || !off.Tools[0].ReadOnlyHint || !off.Tools[0].NeedsApproval {
		t.Fatalf("tool view with trust off: %+v", off.Tools)
	}
	if v := verdict(permission.ModeDefault); v.Behavior != permission.Ask {
		t.Fatalf("untrusted: %+v", v)
	}
	if v := verdict(permission.ModePlan); v.Behavior != permission.Deny {
		t.Fatalf("plan mode, untrusted: %+v", v)
	}

	// A save that does not say keeps the choice; so does a new Manager (a restart).
	cfg := off.Server
	cfg.TrustReadOnlyHints = nil
	cfg.Args = append(cfg.Args, "extra")
	if saved := h.save(cfg); *saved.TrustReadOnlyHints {
		t.Fatal("a save without the field turned trust back on")
	}
	var stored int
	if err := db.QueryRow("SELECT trust_read_only_hints FROM mcp_servers WHERE id = ?", v.ID).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("stored %d %v", stored, err)
	}
	c2 := h.cfg
	c2.Registry, c2.DataDir = tools.NewRegistry(), filepath.Join(dir, "second")
	m2, err := New(ctx, c2)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if e, ok := c2.Registry.Lookup(wire); !ok || e.ReadOnly || e.Approval != ApprovalDefault {
		t.Fatalf("after a restart: %+v", e)
	}
}

package tools_test

import (
	"context"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestPrefsOneStore: one table holds every tool's choice. A built-in tool is switched by
// its wire name; an MCP tool's choice is stored under its server and its own name, so
// the Tools panel (by wire name) and Settings → MCP (by server and tool) read and write
// the same row, and a new wire name for the same tool (its server renamed) keeps it.
func TestPrefsOneStore(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bus := events.NewBus()
	defer bus.Close()
	reg := tools.NewRegistry()
	mcpEntry := func(server string) tools.Entry {
		return tools.Entry{Name: tools.MCPName("srv-1", server, "API-get-self"), Namespace: tools.MCPNamespace("srv-1"),
			Title: "API-get-self", Execute: noop}
	}
	mustRegister(t, reg, builtin("web", "search"), mcpEntry("Notion"))
	p := tools.NewPrefs(db.DB, bus, reg)
	var watched []tools.PrefKey
	p.Watch(func(k tools.PrefKey) { watched = append(watched, k) })

	wire := tools.MCPName("srv-1", "Notion", "API-get-self")
	for _, name := range []string{"web_search", wire} {
		if err := p.SetEnabled(ctx, name, false); err != nil {
			t.Fatal(err)
		}
	}
	mcpKey := tools.PrefKey{Server: "srv-1", Tool: "API-get-self"}
	if len(watched) != 2 || watched[0] != (tools.PrefKey{Tool: "web_search"}) || watched[1] != mcpKey {
		t.Fatalf("watchers saw %+v", watched)
	}
	byServer, err := p.Server(ctx, "srv-1")
	if err != nil || byServer["API-get-self"].Enabled || len(byServer) != 1 {
		t.Fatalf("srv-1's choices %+v %v", byServer, err)
	}
	if _, err := p.Update(ctx, mcpKey, func(pr *tools.Pref) { pr.Approval = tools.ApprovalAllow }); err != nil {
		t.Fatal(err)
	}
	all, _ := p.All(ctx)
	if all["srv-1"]["API-get-self"] != (tools.Pref{Enabled: false, Approval: tools.ApprovalAllow}) || all[""]["web_search"].Enabled {
		t.Fatalf("all choices %+v", all)
	}

	// The server is renamed: the tool comes back under a new wire name, still off.
	if err := reg.ReplaceNamespace(tools.MCPNamespace("srv-1"), []tools.Entry{mcpEntry("Notion Work")}); err != nil {
		t.Fatal(err)
	}
	off, err := p.Disabled(ctx)
	renamed := tools.MCPName("srv-1", "Notion Work", "API-get-self")
	if err != nil || !off["web_search"] || !off[renamed] || off[wire] || len(off) != 2 {
		t.Fatalf("disabled %v %v, want web_search and %s", off, err, renamed)
	}
	snap, err := p.Snapshot(ctx, reg)
	if err != nil || len(snap.Tools) != 2 || snap.Tools[0].Enabled || snap.Tools[1].Enabled {
		t.Fatalf("snapshot %+v %v", snap, err)
	}

	for _, tt := range []struct{ name, why string }{
		{"not a wire name!", "invalid"},
		{wire, "an MCP name no tool has now"},
	} {
		if err := p.SetEnabled(ctx, tt.name, true); !apperr.Is(err, apperr.ToolNotFound) {
			t.Fatalf("%s (%s): %v", tt.name, tt.why, err)
		}
	}
	// A built-in tool not registered now (its capability off) can still be switched.
	if err := p.SetEnabled(ctx, "kb_search", false); err != nil {
		t.Fatal(err)
	}
	if off, _ := p.Disabled(ctx); !off["kb_search"] {
		t.Fatalf("kb_search not off: %v", off)
	}
}

// TestInfoSaysWhatAsks: Settings → Tools' "needs approval" is what the permission step's
// defaults do with the tool's choice: ask asks, allow never does, the default asks unless
// the tool is read-only.
func TestInfoSaysWhatAsks(t *testing.T) {
	tests := []struct {
		name     string
		approval tools.Approval
		readOnly bool
		asks     bool
	}{
		{"default-write", tools.ApprovalDefault, false, true},
		{"default-read", tools.ApprovalDefault, true, false},
		{"ask-read", tools.ApprovalAsk, true, true},
		{"allow-write", tools.ApprovalAllow, false, false},
	}
	reg := tools.NewRegistry()
	for _, tt := range tests {
		mustRegister(t, reg, tools.Entry{Name: tt.name, Namespace: "mcp:s", Title: tt.name, Approval: tt.approval, ReadOnly: tt.readOnly, Execute: noop})
	}
	got := map[string]bool{}
	for _, in := range reg.List() {
		got[in.Name] = in.NeedsApproval
	}
	for _, tt := range tests {
		if got[tt.name] != tt.asks {
			t.Errorf("%s: needsApproval %v, want %v", tt.name, got[tt.name], tt.asks)
		}
	}
}

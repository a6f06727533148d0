package tools

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

// TopicTools carries changes of the tool list and of the user's per-tool switches.
const TopicTools = "tools"

// TypePrefsChanged announces that a tool was turned on or off.
const TypePrefsChanged = "tools:prefs"

// Pref is the user's choice for one tool: whether it is offered at all, and whether its
// calls ask first (an MCP tool's approval; the default for every other tool).
type Pref struct {
	Enabled  bool
	Approval Approval
}

// DefaultPref is the choice of a tool the user never touched.
var DefaultPref = Pref{Enabled: true}

// PrefKey names a tool in the one store of choices (table tool_prefs): an MCP tool by
// its server's id and its own name on the server, so that a new wire name (the server
// renamed, a new spelling of MCPName) keeps the choice; any other tool by its wire name,
// with Server "".
type PrefKey struct {
	Server string
	Tool   string
}

// PrefKey is where the entry's choice is stored. An MCP entry's Title is its own name on
// its server (mcp's catalog sets it so).
func (e *Entry) PrefKey() PrefKey { return keyOf(e.Name, e.Namespace, e.Title) }

func keyOf(name, namespace, title string) PrefKey {
	if IsMCPNamespace(namespace) {
		return PrefKey{Server: strings.TrimPrefix(namespace, MCPNamespacePrefix), Tool: title}
	}
	return PrefKey{Tool: name}
}

// Prefs are the user's per-tool choices (Settings → Tools, Settings → MCP, `cairn mcp`),
// stored in SQLite in one table: the pipeline leaves out what is switched off, and mcp
// builds its entries' approval from them.
type Prefs struct {
	db  *sql.DB
	bus *events.Bus
	reg *Registry // maps wire names to keys; nil: only keyed access (mcp's own tests)

	mu       sync.Mutex
	watchers []func(PrefKey)
}

// NewPrefs returns the choices over the application database; reg names the tools the
// Tools panel switches by wire name.
func NewPrefs(db *sql.DB, bus *events.Bus, reg *Registry) *Prefs {
	return &Prefs{db: db, bus: bus, reg: reg}
}

// Watch calls f after every change of a choice, with the tool's key (mcp rebuilds the
// server's entries and tells its windows).
func (p *Prefs) Watch(f func(PrefKey)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watchers = append(p.watchers, f)
}

// Server returns the choices stored for one MCP server's tools ("" for the other
// tools), by tool name; a tool without a row has DefaultPref.
func (p *Prefs) Server(ctx context.Context, server string) (map[string]Pref, error) {
	all, err := p.query(ctx, "WHERE server_id = ?", server)
	if err != nil {
		return nil, err
	}
	if m := all[server]; m != nil {
		return m, nil
	}
	return map[string]Pref{}, nil
}

// All returns every stored choice by server id ("" for tools that are not MCP tools),
// then tool name: start-up reads them in one query.
func (p *Prefs) All(ctx context.Context) (map[string]map[string]Pref, error) {
	return p.query(ctx, "")
}

func (p *Prefs) query(ctx context.Context, where string, args ...any) (map[string]map[string]Pref, error) {
	rows, err := p.db.QueryContext(ctx, "SELECT server_id, tool, enabled, approval FROM tool_prefs "+where, args...)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read tool choices")
	}
	defer rows.Close()
	out := map[string]map[string]Pref{}
	for rows.Next() {
		var server, tool, approval string
		var on int
		if err := rows.Scan(&server, &tool, &on, &approval); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read tool choices")
		}
		if out[server] == nil {
			out[server] = map[string]Pref{}
		}
		out[server][tool] = Pref{Enabled: on != 0, Approval: Approval(approval)}
	}
	if err := rows.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read tool choices")
	}
	return out, nil
}

// Update changes one tool's choice (starting from DefaultPref when none is stored),
// tells every window and the watchers, and returns the new choice.
func (p *Prefs) Update(ctx context.Context, k PrefKey, f func(*Pref)) (Pref, error) {
	if strings.TrimSpace(k.Tool) == "" {
		return Pref{}, apperr.New(apperr.InvalidArgument, "no tool named").WithParam("message", "no tool named")
	}
	cur, err := p.Server(ctx, k.Server)
	if err != nil {
		return Pref{}, err
	}
	pref, ok := cur[k.Tool]
	if !ok {
		pref = DefaultPref
	}
	f(&pref)
	on := 0
	if pref.Enabled {
		on = 1
	}
	if _, err := p.db.ExecContext(ctx, `INSERT INTO tool_prefs (server_id, tool, enabled, approval, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(server_id, tool) DO UPDATE SET enabled = excluded.enabled, approval = excluded.approval, updated_at = excluded.updated_at`,
		k.Server, k.Tool, on, string(pref.Approval), time.Now().UnixMilli()); err != nil {
		return Pref{}, apperr.Wrap(err, apperr.Internal, "store tool choice")
	}
	p.bus.Publish(TopicTools, TypePrefsChanged, map[string]any{"name": p.wireName(k), "enabled": pref.Enabled})
	p.mu.Lock()
	ws := append([]func(PrefKey){}, p.watchers...)
	p.mu.Unlock()
	for _, w := range ws {
		w(k)
	}
	return pref, nil
}

// wireName is the registered tool's wire name for k ("" when none is registered: the
// Tools panel then reloads).
func (p *Prefs) wireName(k PrefKey) string {
	if k.Server == "" {
		return k.Tool
	}
	if p.reg == nil {
		return ""
	}
	for _, rec := range p.reg.snapshot() {
		if rec.entry.PrefKey() == k {
			return rec.entry.Name
		}
	}
	return ""
}

// Disabled is the set of registered wire names the user turned off (with the built-in
// names turned off that are not registered now).
func (p *Prefs) Disabled(ctx context.Context) (map[string]bool, error) {
	rows, err := p.db.QueryContext(ctx, "SELECT server_id, tool FROM tool_prefs WHERE enabled = 0")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read tool switches")
	}
	defer rows.Close()
	off := map[PrefKey]bool{}
	for rows.Next() {
		var k PrefKey
		if err := rows.Scan(&k.Server, &k.Tool); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read tool switches")
		}
		off[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read tool switches")
	}
	out := make(map[string]bool, len(off))
	for k := range off {
		if k.Server == "" {
			out[k.Tool] = true
		}
	}
	if len(out) < len(off) && p.reg != nil {
		for _, rec := range p.reg.snapshot() {
			if off[rec.entry.PrefKey()] {
				out[rec.entry.Name] = true
			}
		}
	}
	return out, nil
}

// SetEnabled turns one tool on or off by its wire name (Settings → Tools): an MCP tool's
// switch is stored under its server and name, so Settings → MCP shows the same.
func (p *Prefs) SetEnabled(ctx context.Context, name string, enabled bool) error {
	k, err := p.keyOfName(name)
	if err != nil {
		return err
	}
	_, err = p.Update(ctx, k, func(pr *Pref) { pr.Enabled = enabled })
	return err
}

// keyOfName is the key of the tool registered under a wire name; a name no tool has now
// is a built-in's (switched off before its capability comes back), unless it has the
// shape of an MCP name, which only a registered tool can be resolved from.
func (p *Prefs) keyOfName(name string) (PrefKey, error) {
	notFound := apperr.New(apperr.ToolNotFound, "no tool %q", name).WithParam("name", name)
	if !ValidWireName(name) {
		return PrefKey{}, notFound
	}
	if p.reg != nil {
		if e, ok := p.reg.Lookup(name); ok {
			return e.PrefKey(), nil
		}
	}
	if strings.HasPrefix(name, "mcp__") {
		return PrefKey{}, notFound
	}
	return PrefKey{Tool: name}, nil
}

// ToolState is one row of Settings → Tools.
type ToolState struct {
	Info
	Enabled bool `json:"enabled"`
}

// ToolsSnapshot is the Tools panel's content, stamped with the tools topic's seq.
type ToolsSnapshot struct {
	Seq   uint64      `json:"seq"`
	Tools []ToolState `json:"tools"`
}

// Snapshot lists every registered tool with its switch.
func (p *Prefs) Snapshot(ctx context.Context, reg *Registry) (ToolsSnapshot, error) {
	seq := p.bus.Seq(TopicTools)
	off, err := p.Disabled(ctx)
	if err != nil {
		return ToolsSnapshot{}, err
	}
	infos := reg.List()
	out := ToolsSnapshot{Seq: seq, Tools: make([]ToolState, 0, len(infos))}
	for _, in := range infos {
		out.Tools = append(out.Tools, ToolState{Info: in, Enabled: !off[in.Name]})
	}
	return out, nil
}

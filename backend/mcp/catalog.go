package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolInfo is one tool of a server as Settings shows it.
type ToolInfo struct {
	Name        string          `json:"name"`     // the server's own tool name
	WireName    string          `json:"wireName"` // what the model calls (tools.MCPName)
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// ReadOnly is what is in force: the server marks the tool read-only and its hints
	// are trusted (Server.TrustReadOnlyHints). ReadOnlyHint is the server's word alone.
	ReadOnly     bool `json:"readOnly"`
	ReadOnlyHint bool `json:"readOnlyHint"`
	Destructive  bool `json:"destructive"`
	Enabled      bool `json:"enabled"`
	// Approval is the user's choice; NeedsApproval is what is in force.
	Approval      Approval `json:"approval"`
	NeedsApproval bool     `json:"needsApproval"`
}

// ListTools returns a server's tools from the catalog cache. It never connects, so a dead
// or slow server can never hold a caller. The first read of a server that was never
// warmed starts one background refresh; until it lands the list is empty.
func (m *Manager) ListTools(ctx context.Context, id string) ([]ToolInfo, error) {
	s, err := m.get(id)
	if err != nil {
		return nil, err
	}
	cfg := s.config()
	cat, ok, err := m.db.cache(ctx, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		s.mu.Lock()
		ask := !s.warmAsked && cfg.Enabled
		s.warmAsked = true
		s.mu.Unlock()
		if ask {
			m.requestRefresh(id)
		}
		return []ToolInfo{}, nil
	}
	prefs, err := m.prefs.Server(ctx, id)
	if err != nil {
		return nil, err
	}
	return toolInfos(cfg, cat, prefs), nil
}

func toolInfos(cfg Server, cat catalog, prefs map[string]tools.Pref) []ToolInfo {
	out := make([]ToolInfo, 0, len(cat.Tools))
	for _, t := range uniqueTools(cat.Tools, nil) {
		p := prefOf(prefs, t.Name)
		ro, destr, claimed := hints(t, cfg.trustsHints())
		schema, _ := json.Marshal(t.InputSchema)
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		out = append(out, ToolInfo{
			Name: t.Name, WireName: tools.MCPName(cfg.ID, cfg.Name, t.Name), Title: title,
			Description: t.Description, InputSchema: schema, ReadOnly: ro, ReadOnlyHint: claimed, Destructive: destr,
			Enabled: p.Enabled, Approval: p.Approval, NeedsApproval: needsApproval(p, ro),
		})
	}
	out = append(out, resourceReadInfos(cfg, cat, prefs)...)
	slices.SortFunc(out, func(a, b ToolInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// uniqueTools drops nameless tools and every definition of a name after its first: one
// name is one wire name, so a server that lists a tool twice must not get two rows (or a
// second definition that says something else about it). dup is told each name dropped.
func uniqueTools(list []*mcp.Tool, dup func(name string)) []*mcp.Tool {
	out := make([]*mcp.Tool, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, t := range list {
		if t == nil || t.Name == "" {
			continue
		}
		if seen[t.Name] {
			if dup != nil {
				dup(t.Name)
			}
			continue
		}
		seen[t.Name] = true
		out = append(out, t)
	}
	return out
}

func prefOf(prefs map[string]tools.Pref, tool string) tools.Pref {
	if p, ok := prefs[tool]; ok {
		return p
	}
	return tools.DefaultPref
}

// hints reads the annotations: read-only when the server says so and its hints are
// trusted (claimed is what the server says either way); destructive unless read-only or
// explicitly not (the MCP default for destructiveHint is true).
func hints(t *mcp.Tool, trusted bool) (readOnly, destructive, claimed bool) {
	if t.Annotations == nil {
		return false, true, false
	}
	a := t.Annotations
	claimed = a.ReadOnlyHint
	readOnly = claimed && trusted
	destructive = !readOnly && (a.DestructiveHint == nil || *a.DestructiveHint)
	return readOnly, destructive, claimed
}

// needsApproval is what the permission engine's defaults make of the user's choice
// (Settings shows it beside the choice): ask asks, allow never does, the default asks
// for every tool not annotated read-only. Rules and the session's mode come on top.
func needsApproval(p tools.Pref, readOnly bool) bool {
	return p.Approval == ApprovalAsk || p.Approval == ApprovalDefault && !readOnly
}

// RefreshTools connects to the server if needed, lists its tools, writes the cache and
// syncs the registry. It is the only path of the catalog that connects; the warmer and
// the user's "refresh" call it.
func (m *Manager) RefreshTools(ctx context.Context, id string) ([]ToolInfo, error) {
	s, err := m.get(id)
	if err != nil {
		return nil, err
	}
	c, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	cfg := s.config()
	lctx, cancel := context.WithTimeout(ctx, cfg.connectTimeout(m.opt.ConnectTimeout))
	defer cancel()
	var list []*mcp.Tool
	for t, err := range c.cs.Tools(lctx, nil) {
		if err != nil {
			if ae, ok := m.signInLost(s, err); ok {
				return nil, ae
			}
			if lctx.Err() != nil && ctx.Err() == nil {
				s.log.Eventf("tools/list did not answer within the connect timeout")
				return nil, timeoutError(cfg, m.opt.ConnectTimeout, err)
			}
			ae := apperr.Wrap(err, apperr.MCPConnectFailed, "list tools of %s", cfg.Name).
				WithParam("server", cfg.Name).WithParam("message", fmt.Sprintf("tools/list failed: %v", err))
			s.log.Eventf("tools/list failed: %v", err)
			return nil, ae
		}
		list = append(list, t)
	}
	list = uniqueTools(list, func(name string) {
		s.log.Eventf("the server lists the tool %q more than once; Cairn keeps its first definition", name)
		m.log.Warn("mcp: a tool is listed twice", "server", id, "tool", name)
	})
	cat := catalog{Tools: list, Instructions: c.instr, ServerInfo: c.info, RefreshedAt: time.Now().UnixMilli()}
	if err := m.db.putCache(ctx, id, cat); err != nil {
		return nil, err
	}
	s.log.Eventf("catalog refreshed: %d tools", len(list))
	prefs, err := m.prefs.Server(ctx, id)
	if err != nil {
		return nil, err
	}
	m.syncFrom(id, cat, true, prefs)
	m.publishServer(id)
	return toolInfos(cfg, cat, prefs), nil
}

// requestRefresh is the warmer: it refreshes a server in the background, coalescing
// requests that arrive while one runs (tools/list_changed bursts) into one more run.
func (m *Manager) requestRefresh(id string) {
	s, err := m.get(id)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.refreshing {
		s.refreshAgain = true
		s.mu.Unlock()
		return
	}
	s.refreshing = true
	s.mu.Unlock()
	ok := m.goBackground(func() {
		for {
			if _, err := m.RefreshTools(m.ctx, id); err != nil && m.ctx.Err() == nil {
				m.log.Info("mcp: refresh failed", "server", id, "err", err)
			}
			s.mu.Lock()
			if !s.refreshAgain || m.ctx.Err() != nil {
				s.refreshing, s.refreshAgain = false, false
				s.mu.Unlock()
				return
			}
			s.refreshAgain = false
			s.mu.Unlock()
		}
	})
	if !ok {
		s.mu.Lock()
		s.refreshing = false
		s.mu.Unlock()
	}
}

// syncAll syncs every server's cached tools into the registry: two queries and one
// registry update for all servers, so start-up does not grow with their number squared.
func (m *Manager) syncAll(ctx context.Context) {
	m.mu.Lock()
	ids := make([]string, 0, len(m.servers))
	for id := range m.servers {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	m.syncServers(ctx, ids)
}

// syncServer makes the registry's namespace mcp:<id> hold exactly the server's enabled
// cached tools (idempotent; a disabled or deleted server's namespace is emptied).
func (m *Manager) syncServer(ctx context.Context, id string) {
	m.mu.Lock()
	reg, s := m.reg, m.servers[id]
	m.mu.Unlock()
	if reg == nil || s == nil || !s.config().Enabled {
		m.syncFrom(id, catalog{}, false, nil) // empties the namespace; reads nothing
		return
	}
	cat, ok, err := m.db.cache(ctx, id)
	if err != nil {
		return
	}
	var prefs map[string]tools.Pref
	if ok {
		if prefs, err = m.prefs.Server(ctx, id); err != nil {
			return
		}
	}
	m.syncFrom(id, cat, ok, prefs)
}

// syncFrom is syncServer with the server's cache and preferences already read.
func (m *Manager) syncFrom(id string, cat catalog, cached bool, prefs map[string]tools.Pref) {
	m.mu.Lock()
	reg := m.reg
	s := m.servers[id]
	m.mu.Unlock()
	if reg == nil {
		return
	}
	ns := tools.MCPNamespace(id)
	if s == nil {
		_ = reg.ReplaceNamespace(ns, nil)
		return
	}
	cfg := s.config()
	var entries []tools.Entry
	if cfg.Enabled && cached {
		entries = m.entries(cfg, cat, prefs)
	}
	if err := reg.ReplaceNamespace(ns, entries); err != nil {
		s.log.Eventf("some tools could not be offered to the model: %v", err)
		m.log.Warn("mcp: registry sync failed", "server", id, "err", err)
	}
}

// maxInstruction caps the server instructions put in the system prompt.
const maxInstruction = 1500

// entries builds the registry entries of a server's tools. A tool the user switched off
// is registered too (Settings → Tools lists it, with its switch): the pipeline leaves it
// out of every request, as it does any tool switched off (tools.Prefs).
func (m *Manager) entries(cfg Server, cat catalog, prefs map[string]tools.Pref) []tools.Entry {
	instr := strings.TrimSpace(cat.Instructions)
	if instr != "" {
		if len(instr) > maxInstruction {
			instr = strings.ToValidUTF8(instr[:maxInstruction], "") + "…"
		}
		instr = fmt.Sprintf("MCP server %q instructions:\n%s", cfg.Name, instr)
	}
	out := make([]tools.Entry, 0, len(cat.Tools))
	for _, t := range uniqueTools(cat.Tools, nil) {
		p := prefOf(prefs, t.Name)
		ro, destr, _ := hints(t, cfg.trustsHints())
		schema, _ := json.Marshal(t.InputSchema)
		if string(schema) == "null" {
			schema = nil
		}
		var outSchema json.RawMessage
		if t.OutputSchema != nil {
			outSchema, _ = json.Marshal(t.OutputSchema)
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		id, name := cfg.ID, t.Name
		// Folding, the progress kind and the approval gate's interlock are the registry's
		// defaults for an MCP namespace; only what is the server's is said here.
		out = append(out, tools.Entry{
			Name:           tools.MCPName(cfg.ID, cfg.Name, t.Name),
			Namespace:      tools.MCPNamespace(cfg.ID),
			NamespaceLabel: cfg.Name,
			Title:          t.Name, // also its key in tools.Prefs (Entry.PrefKey)
			Description:    desc,
			SearchHint:     t.Name + " " + t.Title,
			InputSchema:    schema,
			OutputSchema:   outSchema,
			Applies:        tools.WhenToolset("mcp"),
			ReadOnly:       ro,
			Destructive:    destr,
			// Read-only calls of one server may run side by side; anything else in order.
			ConcurrencySafe: ro,
			Approval:        p.Approval,
			Timeout:         callBackstop(cfg.callTimeout()),
			Cancellable:     true,
			Instruction:     instr,
			Execute: func(ctx context.Context, args json.RawMessage, progress func(tools.Progress)) (tools.Result, error) {
				return m.CallTool(ctx, id, name, args, progress)
			},
		})
	}
	return append(out, m.resourceReadEntries(cfg, cat, prefs)...)
}

package tools

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/google/jsonschema-go/jsonschema"
)

// record is an entry as the registry keeps it: the entry's own copy plus everything
// derived from it once at registration (compacted definition, token cost, schema).
type record struct {
	entry  *Entry
	def    Definition
	tokens int
	schema *jsonschema.Resolved
	mcp    bool
}

// Registry is Cairn's one process-wide tool registry (TOOL-1). It is the only shared
// mutable state of the tool system: create one per process (service.Services) and share
// it; every method is safe for concurrent use.
type Registry struct {
	tok  tokenCounter
	meta metaInfo

	mu      sync.RWMutex
	byNS    map[string]map[string]*record // namespace → wire name → record
	sorted  []*record                     // snapshot sorted by name, built-ins first; never mutated
	version uint64
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byNS: map[string]map[string]*record{}}
}

// Register adds or replaces (same namespace and name) entries. It is all or nothing:
// when one entry is invalid nothing changes and the error, an *apperr.Error, says why.
func (r *Registry) Register(entries ...Entry) error {
	recs, err := r.prepare("", entries)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range recs {
		ns := r.byNS[rec.entry.Namespace]
		if ns == nil {
			ns = map[string]*record{}
			r.byNS[rec.entry.Namespace] = ns
		}
		ns[rec.def.Name] = rec
	}
	r.rebuildLocked()
	return nil
}

// ReplaceNamespace makes the namespace hold exactly these entries (the MCP catalog sync:
// idempotent, stale tools disappear). Entries with an empty Namespace get ns. All or
// nothing, like Register; an empty list removes the namespace.
func (r *Registry) ReplaceNamespace(ns string, entries []Entry) error {
	m, err := r.prepareNamespace(ns, entries)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setNamespaceLocked(ns, m)
	r.rebuildLocked()
	return nil
}

// ReplaceNamespaces is ReplaceNamespace for several namespaces with one rebuild of the
// sorted pool, so syncing n servers costs one rebuild instead of n. Each namespace is
// all or nothing on its own: one with an invalid entry keeps what it held, and its error
// is returned under its name (nil when every namespace was replaced).
func (r *Registry) ReplaceNamespaces(byNS map[string][]Entry) map[string]error {
	ready := make(map[string]map[string]*record, len(byNS))
	var errs map[string]error
	for ns, entries := range byNS {
		m, err := r.prepareNamespace(ns, entries)
		if err != nil {
			if errs == nil {
				errs = map[string]error{}
			}
			errs[ns] = err
			continue
		}
		ready[ns] = m
	}
	if len(ready) == 0 {
		return errs
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for ns, m := range ready {
		r.setNamespaceLocked(ns, m)
	}
	r.rebuildLocked()
	return errs
}

// prepareNamespace validates a namespace's entries (outside the lock), keyed by wire name.
func (r *Registry) prepareNamespace(ns string, entries []Entry) (map[string]*record, error) {
	if ns == "" {
		return nil, apperr.New(apperr.InvalidArgument, "tools: empty namespace").WithParam("message", "empty namespace")
	}
	recs, err := r.prepare(ns, entries)
	if err != nil {
		return nil, err
	}
	m := make(map[string]*record, len(recs))
	for _, rec := range recs {
		if _, dup := m[rec.def.Name]; dup {
			return nil, invalidEntry(rec.def.Name, "registered twice in namespace "+ns)
		}
		m[rec.def.Name] = rec
	}
	return m, nil
}

func (r *Registry) setNamespaceLocked(ns string, m map[string]*record) {
	if len(m) == 0 {
		delete(r.byNS, ns)
	} else {
		r.byNS[ns] = m
	}
}

// Unregister removes tools by wire name from every namespace; unknown names are ignored.
func (r *Registry) Unregister(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		for ns, m := range r.byNS {
			delete(m, n)
			if len(m) == 0 {
				delete(r.byNS, ns)
			}
		}
	}
	r.rebuildLocked()
}

// Version increases with every change, so callers can cache what they derive.
func (r *Registry) Version() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.version
}

// Lookup finds a registered tool by wire name or alias regardless of scope (built-ins
// before MCP tools of the same name). The entry is shared: do not modify it.
func (r *Registry) Lookup(name string) (*Entry, bool) {
	rec := resolve(r.snapshot(), name)
	if rec == nil {
		return nil, false
	}
	return rec.entry, true
}

// List describes every registered tool, sorted by wire name, for the Settings panel.
func (r *Registry) List() []Info {
	snap := r.snapshot()
	out := make([]Info, 0, len(snap))
	for _, rec := range snap {
		e := rec.entry
		out = append(out, Info{
			Name: e.Name, Title: e.Ref().Title, Namespace: e.Namespace, NamespaceLabel: e.NamespaceLabel,
			Description: e.Description, Source: e.Source(), Defer: e.Defer,
			ReadOnly: e.ReadOnly, Destructive: e.Destructive, ConcurrencySafe: e.ConcurrencySafe,
			NeedsApproval: e.Asks(), Aliases: slices.Clone(e.Aliases), Tokens: rec.tokens,
		})
	}
	return out
}

// MetaToolsTokens is the prompt cost folding adds: the tool_search, tool_inspect and
// tool_invoke definitions plus the fixed text of the <DEFERRED_TOOLS> section, counted
// with the same tokenizer as the tools they replace.
func (r *Registry) MetaToolsTokens() int { return r.metaCatalog().tokens }

// SelectActive assembles the tools of one request (TOOL-2, TOOL-4): tools whose Applies
// holds and that the user did not disable, de-duplicated by wire name (built-ins win over
// MCP), sorted by wire name, with their toolsets' instructions; then folding, which
// replaces folded tools by the meta tools and adds a <DEFERRED_TOOLS> section. A model
// without tool support gets nothing. An entry's Instructions writes its toolset's text
// for this request, in place of Instruction.
func (r *Registry) SelectActive(ctx context.Context, scope Scope) Selection {
	if !scope.Model.SupportsTools {
		return Selection{}
	}
	active := r.active(scope)
	meta := r.metaCatalog()

	fold := r.plan(scope, active)

	var sel Selection
	sel.Tools = make([]Definition, 0, len(active)+len(meta.defs))
	var instr []nsText
	var deferred []deferredNamespace
	for i, rec := range active {
		e := rec.entry
		if fold[i] {
			sel.Deferred = append(sel.Deferred, rec.def.Name)
			if n := len(deferred); n > 0 && deferred[n-1].Namespace == e.Namespace {
				deferred[n-1].Count++
			} else if j := slices.IndexFunc(deferred, func(d deferredNamespace) bool { return d.Namespace == e.Namespace }); j >= 0 {
				deferred[j].Count++
			} else {
				deferred = append(deferred, deferredNamespace{Namespace: e.Namespace, Label: e.NamespaceLabel, Count: 1})
			}
			continue
		}
		sel.Tools = append(sel.Tools, rec.def)
		sel.ToolTokens += rec.tokens
		instr = addInstruction(ctx, instr, e, scope)
	}
	if len(sel.Deferred) > 0 {
		sel.Tools = append(sel.Tools, meta.defs...)
		sel.ToolTokens += meta.defTokens
		slices.SortFunc(sel.Tools, func(a, b Definition) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortFunc(deferred, func(a, b deferredNamespace) int { return cmp.Compare(a.Namespace, b.Namespace) })
	}
	sel.Instructions = joinInstructions(instr, deferred)
	return sel
}

type nsText struct {
	ns, text string
	dynamic  bool // written by the entry's Instructions
}

// addInstruction adds e's toolset text once per namespace: its Instructions' text for
// this request when it has one (asked once per namespace), else its fixed Instruction.
func addInstruction(ctx context.Context, instr []nsText, e *Entry, scope Scope) []nsText {
	if e.Instructions != nil {
		if slices.ContainsFunc(instr, func(t nsText) bool { return t.ns == e.Namespace && t.dynamic }) {
			return instr
		}
		return append(instr, nsText{ns: e.Namespace, text: instructionsOf(ctx, e, scope), dynamic: true})
	}
	if e.Instruction != "" && !slices.ContainsFunc(instr, func(t nsText) bool { return t.ns == e.Namespace && t.text == e.Instruction }) {
		instr = append(instr, nsText{ns: e.Namespace, text: e.Instruction})
	}
	return instr
}

// instructionsOf runs an entry's Instructions; a panicking one adds nothing.
func instructionsOf(ctx context.Context, e *Entry, scope Scope) (text string) {
	defer func() {
		if recover() != nil {
			text = ""
		}
	}()
	return e.Instructions(ctx, scope)
}

// joinInstructions orders the toolsets' instructions by namespace (stable prompt prefix)
// and appends the <DEFERRED_TOOLS> section when something was folded.
func joinInstructions(instr []nsText, deferred []deferredNamespace) string {
	slices.SortStableFunc(instr, func(a, b nsText) int { return cmp.Compare(a.ns, b.ns) })
	var b strings.Builder
	for _, t := range instr {
		if t.text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t.text)
	}
	if len(deferred) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(deferredSection(deferred))
	}
	return b.String()
}

// active is the de-duplicated, scope-filtered pool, sorted by wire name.
func (r *Registry) active(scope Scope) []*record {
	snap := r.snapshot()
	out := make([]*record, 0, len(snap))
	last := ""
	for _, rec := range snap {
		name := rec.def.Name
		if name == last || scope.Disabled[name] || !scope.allows(name) || !applies(rec.entry, scope) {
			continue
		}
		out = append(out, rec)
		last = name
	}
	return out
}

// applies runs an entry's predicate; a panicking predicate counts as "does not apply".
func applies(e *Entry, s Scope) (ok bool) {
	if e.Applies == nil {
		return true
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return e.Applies(s)
}

// find is resolve(r.active(scope), name) without building the pool: a call looks up one
// name, and filtering every registered tool per call cost more than the call itself.
func (r *Registry) find(scope Scope, name string) *record {
	snap := r.snapshot()
	if !scope.Disabled[name] && scope.allows(name) {
		i, _ := slices.BinarySearchFunc(snap, name, func(rec *record, n string) int { return cmp.Compare(rec.def.Name, n) })
		for ; i < len(snap) && snap[i].def.Name == name; i++ {
			if applies(snap[i].entry, scope) {
				return snap[i]
			}
		}
	}
	for _, rec := range r.active(scope) { // aliases: rare, and only when the name missed
		if slices.Contains(rec.entry.Aliases, name) {
			return rec
		}
	}
	return nil
}

// resolve finds a record by wire name (binary search on the sorted pool), then by alias.
func resolve(pool []*record, name string) *record {
	i, found := slices.BinarySearchFunc(pool, name, func(rec *record, n string) int { return cmp.Compare(rec.def.Name, n) })
	if found {
		return pool[i]
	}
	for _, rec := range pool {
		if slices.Contains(rec.entry.Aliases, name) {
			return rec
		}
	}
	return nil
}

func (r *Registry) snapshot() []*record {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sorted
}

// rebuildLocked replaces the sorted snapshot; readers holding the old one keep it intact.
func (r *Registry) rebuildLocked() {
	n := 0
	for _, m := range r.byNS {
		n += len(m)
	}
	s := make([]*record, 0, n)
	for _, m := range r.byNS {
		for _, rec := range m {
			s = append(s, rec)
		}
	}
	slices.SortFunc(s, func(a, b *record) int {
		if c := cmp.Compare(a.def.Name, b.def.Name); c != 0 {
			return c
		}
		if a.mcp != b.mcp { // built-in wins over MCP
			if a.mcp {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.entry.Namespace, b.entry.Namespace)
	})
	r.sorted = s
	r.version++
}

// prepare validates and normalises entries outside the lock (schema compilation and
// token counting are the expensive part of registration).
func (r *Registry) prepare(ns string, entries []Entry) ([]*record, error) {
	recs := make([]*record, 0, len(entries))
	var errs []error
	for _, e := range entries {
		if ns != "" {
			if e.Namespace == "" {
				e.Namespace = ns
			} else if e.Namespace != ns {
				errs = append(errs, invalidEntry(e.Name, fmt.Sprintf("namespace %q is not %q", e.Namespace, ns)))
				continue
			}
		}
		rec, err := r.prepareOne(e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, rec)
	}
	if len(errs) > 0 {
		if len(errs) == 1 {
			return nil, errs[0]
		}
		err := errors.Join(errs...)
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "tools: %d invalid entries", len(errs)).WithParam("message", err.Error())
	}
	return recs, nil
}

func (r *Registry) prepareOne(e Entry) (*record, error) {
	switch {
	case e.invalid != nil:
		return nil, invalidEntry(e.Name, e.invalid.Error())
	case !ValidWireName(e.Name):
		return nil, invalidEntry(e.Name, "wire name must be 1..63 characters of [a-zA-Z0-9_-]")
	case isMetaName(e.Name):
		return nil, invalidEntry(e.Name, "the name is reserved for a meta tool")
	case strings.TrimSpace(e.Namespace) == "" || strings.ContainsAny(e.Namespace, " \t\n"):
		return nil, invalidEntry(e.Name, "namespace must be set and contain no spaces")
	case e.Namespace == NamespaceMeta:
		return nil, invalidEntry(e.Name, "the meta namespace belongs to the pipeline")
	case e.Execute == nil:
		return nil, invalidEntry(e.Name, "Execute is required")
	}
	mcp := IsMCPNamespace(e.Namespace)
	if !mcp && strings.TrimSpace(e.Description) == "" {
		return nil, invalidEntry(e.Name, "a built-in tool needs a description")
	}
	switch e.Defer {
	case "":
		e.Defer = DeferNever
		if mcp {
			e.Defer = DeferAuto
		}
	case DeferNever, DeferAlways, DeferAuto:
	default:
		return nil, invalidEntry(e.Name, fmt.Sprintf("defer %q is not never, always or auto", e.Defer))
	}
	params, rs, err := compileSchema(e.InputSchema, mcp)
	if err != nil {
		return nil, invalidEntry(e.Name, err.Error())
	}
	e.InputSchema = params
	if len(bytes.TrimSpace(e.OutputSchema)) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, e.OutputSchema); err != nil {
			if !mcp {
				return nil, invalidEntry(e.Name, "output schema is not valid JSON")
			}
			e.OutputSchema = nil
		} else {
			e.OutputSchema = buf.Bytes()
		}
	}
	e.Aliases = slices.DeleteFunc(slices.Clone(e.Aliases), func(a string) bool { return a == "" || a == e.Name })
	def := Definition{Name: e.Name, Description: e.Description, Parameters: params}
	return &record{entry: &e, def: def, tokens: r.tok.definitionTokens(def), schema: rs, mcp: mcp}, nil
}

func invalidEntry(name, why string) *apperr.Error {
	msg := fmt.Sprintf("tool %q: %s", name, why)
	return apperr.New(apperr.InvalidArgument, "tools: %s", msg).WithParam("message", msg)
}

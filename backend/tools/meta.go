package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
)

// The meta tools' wire names, tool_<verb> (TOOL-4, TOOL-5). They are reserved: no entry
// may use them.
const (
	searchName     = "tool_search"
	inspectName    = "tool_inspect"
	invokeName     = "tool_invoke"
	readResultName = "tool_read_result"
)

func isMetaName(n string) bool {
	return n == searchName || n == inspectName || n == invokeName || n == readResultName
}

// Limits of tool_search and tool_read_result.
const (
	searchDefaultLimit = 10
	searchListLimit    = 50
	readDefaultLength  = 20000
	readMaxLength      = 100000
)

// foldingMetaDefinitions are the three tools that replace folded ones, sorted by name.
func foldingMetaDefinitions() []Definition {
	return []Definition{
		{
			Name: inspectName,
			Description: "Show the full signature of a tool: description, JSON Schema of its arguments and flags. " +
				"A folded tool must be inspected (or found with tool_search verbose=true) before tool_invoke accepts it.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"Wire name of the tool"}},"required":["name"],"additionalProperties":false}`),
		},
		{
			Name: invokeName,
			Description: "Call a folded tool (see <DEFERRED_TOOLS>) by name with arguments that match its schema. " +
				"Inspect it first. Tools that need approval are never folded: call them directly.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"Wire name of the tool"},"arguments":{"type":"object","description":"Arguments for the tool, as its schema describes"}},"required":["name"],"additionalProperties":false}`),
		},
		{
			Name: searchName,
			Description: "Search the folded tools (see <DEFERRED_TOOLS>) by keywords and/or namespace; results are grouped by namespace. " +
				"verbose=true also returns each tool's full argument schema and counts as inspecting it.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Keywords to match in tool names and descriptions; empty lists the namespace"},"namespace":{"type":"string","description":"Only search this namespace, e.g. mcp:<server>"},"verbose":{"type":"boolean","description":"Include full argument schemas"},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"Most tools to return (default 10)"}},"additionalProperties":false}`),
		},
	}
}

// readResultDefinition reads results that were too large to send in full.
func readResultDefinition() Definition {
	return Definition{
		Name:        readResultName,
		Description: "Read more of a tool result that was too large to show in full, by byte offset.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"call_id":{"type":"string","description":"Id of the call whose result was truncated"},"offset":{"type":"integer","minimum":0,"description":"Byte offset to start at"},"length":{"type":"integer","minimum":1,"maximum":100000,"description":"Bytes to read (default 20000)"}},"required":["call_id"],"additionalProperties":false}`),
	}
}

// metaInfo is what the registry needs of the meta tools: their definitions and the prompt
// cost folding adds, computed once with the registry's tokenizer.
type metaInfo struct {
	once      sync.Once
	defs      []Definition
	defTokens int
	tokens    int // defTokens + the fixed text of <DEFERRED_TOOLS>
}

func (r *Registry) metaCatalog() *metaInfo {
	r.meta.once.Do(func() {
		r.meta.defs = foldingMetaDefinitions()
		for _, d := range r.meta.defs {
			r.meta.defTokens += r.tok.definitionTokens(d)
		}
		r.meta.tokens = r.meta.defTokens + r.tok.count(deferredSection(nil))
	})
	return &r.meta
}

// initMeta builds the pipeline's meta tools; they are entries like any other, so the
// pipeline validates their arguments and runs hooks and permission on them.
func (p *Pipeline) initMeta() {
	defs := append(foldingMetaDefinitions(), readResultDefinition())
	handlers := map[string]ExecuteFunc{
		searchName:  p.search,
		inspectName: p.inspect,
		invokeName: func(context.Context, json.RawMessage, func(Progress)) (Result, error) {
			return Result{}, errors.New("tool_invoke runs in the pipeline")
		},
		readResultName: p.readResult,
	}
	p.meta = make(map[string]*record, len(defs))
	for _, d := range defs {
		params, rs, err := compileSchema(d.Parameters, false)
		if err != nil {
			panic(fmt.Sprintf("tools: meta tool %s has a bad schema: %v", d.Name, err)) // a bug caught by every test
		}
		e := &Entry{
			Name: d.Name, Namespace: NamespaceMeta, Description: d.Description, InputSchema: params,
			Defer: DeferNever, ReadOnly: true, ConcurrencySafe: d.Name != invokeName, Execute: handlers[d.Name],
		}
		if d.Name == readResultName {
			e.MaxResultBytes = -1 // bounded by its own length limit
		}
		// Token costs are counted on first use: loading the tokenizer's vocabulary is
		// most of the CPU of a CLI command or of `serve` printing its URL.
		p.meta[d.Name] = &record{entry: e, def: d, schema: rs}
	}
	p.invoke = p.meta[invokeName]
	p.readDef = p.meta[readResultName].def
}

// readTokens is the prompt cost of tool_read_result, counted once when first needed.
func (p *Pipeline) readTokens() int {
	p.readTokOnce.Do(func() {
		rec := p.meta[readResultName]
		rec.tokens = p.reg.tok.definitionTokens(rec.def)
		p.readTok = rec.tokens
	})
	return p.readTok
}

// folded is the part of a scope's pool that SelectActive folds.
func (r *Registry) folded(scope Scope, pool []*record) []*record {
	fold := r.plan(scope, pool)
	var out []*record
	for i, f := range fold {
		if f {
			out = append(out, pool[i])
		}
	}
	return out
}

func (r *Registry) plan(scope Scope, pool []*record) []bool {
	costs := make([]ToolCost, len(pool))
	for i, rec := range pool {
		costs[i] = ToolCost{Name: rec.def.Name, Defer: rec.entry.Defer, NeedsApproval: rec.entry.NeedsApproval, Tokens: rec.tokens}
	}
	return PlanDeferral(costs, scope.Model.ContextWindow, r.metaCatalog().tokens)
}

// record marks a tool inspected in a session (the inspect-before-invoke ledger).
func (p *Pipeline) record(session, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.ledger[session]
	if m == nil {
		m = map[string]bool{}
		p.ledger[session] = m
	}
	m[name] = true
}

// Inspected reports whether the session inspected a tool, so tool_invoke accepts it.
func (p *Pipeline) Inspected(sessionID, name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ledger[sessionID][name]
}

// metaContext is the call a meta tool runs for and its scope's pool.
func (p *Pipeline) metaContext(ctx context.Context) (Call, Scope, []*record) {
	call, _ := CallFromContext(ctx)
	scope := p.scopeFor(call)
	return call, scope, p.reg.active(scope)
}

type searchHit struct {
	Name        string          `json:"name"`
	Namespace   string          `json:"namespace"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	rec         *record
	matched     int
	score       int
}

// search is tool_search: keyword and namespace search over the folded tools only.
func (p *Pipeline) search(ctx context.Context, raw json.RawMessage, _ func(Progress)) (Result, error) {
	var a struct {
		Query     string `json:"query"`
		Namespace string `json:"namespace"`
		Verbose   bool   `json:"verbose"`
		Limit     int    `json:"limit"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return Result{}, err
	}
	call, scope, pool := p.metaContext(ctx)
	folded := p.reg.folded(scope, pool)
	if len(folded) == 0 {
		return Result{Content: "No tools are folded in this session: every available tool is already in your tool list."}, nil
	}
	var nss []string
	for _, rec := range folded {
		if !slices.Contains(nss, rec.entry.Namespace) {
			nss = append(nss, rec.entry.Namespace)
		}
	}
	slices.Sort(nss)
	terms := searchTerms(a.Query)
	limit := a.Limit
	if limit <= 0 {
		limit = searchDefaultLimit
		if len(terms) == 0 {
			limit = searchListLimit
		}
	}
	var hits []searchHit
	for _, rec := range folded {
		e := rec.entry
		if a.Namespace != "" && !namespaceMatches(e, a.Namespace) {
			continue
		}
		h := searchHit{Name: rec.def.Name, Namespace: e.Namespace, Description: e.Description, rec: rec}
		if len(terms) > 0 {
			h.matched, h.score = searchScore(e, terms)
			if h.matched == 0 {
				continue
			}
		}
		hits = append(hits, h)
	}
	if len(hits) == 0 {
		display, _ := json.Marshal(map[string]any{"query": a.Query, "namespace": a.Namespace, "verbose": a.Verbose, "total": 0, "tools": []searchHit{}})
		return Result{Content: fmt.Sprintf("No folded tool matches %s. Folded namespaces: %s. "+
			"Try other keywords, or list a namespace with {\"namespace\": \"…\"}.", describeQuery(a.Query, a.Namespace), strings.Join(nss, ", ")),
			Display: display}, nil
	}
	slices.SortStableFunc(hits, func(x, y searchHit) int {
		if c := cmp.Compare(y.matched, x.matched); c != 0 {
			return c
		}
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		return cmp.Compare(x.Name, y.Name)
	})
	total := len(hits)
	hits = hits[:min(len(hits), limit)]
	slices.SortStableFunc(hits, func(x, y searchHit) int { return cmp.Compare(x.Namespace, y.Namespace) })

	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d folded %s matching %s:\n", len(hits), total, plural(total, "tool", "tools"), describeQuery(a.Query, a.Namespace))
	session := sessionOf(call)
	for i := range hits {
		h := &hits[i]
		if i == 0 || hits[i-1].Namespace != h.Namespace {
			b.WriteString("\n## " + h.Namespace)
			if l := h.rec.entry.NamespaceLabel; l != "" && l != h.Namespace {
				b.WriteString(" (" + l + ")")
			}
			b.WriteString("\n")
		}
		if a.Verbose {
			fmt.Fprintf(&b, "- %s: %s\n  parameters: %s\n", h.Name, h.Description, h.rec.def.Parameters)
			h.Parameters = h.rec.def.Parameters
			p.record(session, h.Name)
		} else {
			fmt.Fprintf(&b, "- %s: %s\n", h.Name, firstLine(h.Description, 200))
		}
	}
	if a.Verbose {
		b.WriteString("\nThese tools are now inspected: call them with tool_invoke {\"name\": …, \"arguments\": {…}}.")
	} else {
		b.WriteString("\nRead a tool's parameters with tool_inspect, then call it with tool_invoke.")
	}
	display, _ := json.Marshal(map[string]any{"query": a.Query, "namespace": a.Namespace, "verbose": a.Verbose, "total": total, "tools": hits})
	return Result{Content: b.String(), Display: display}, nil
}

func describeQuery(q, ns string) string {
	switch {
	case q != "" && ns != "":
		return fmt.Sprintf("%q in %s", q, ns)
	case q != "":
		return fmt.Sprintf("%q", q)
	case ns != "":
		return "namespace " + ns
	default:
		return "anything"
	}
}

func namespaceMatches(e *Entry, want string) bool {
	return e.Namespace == want || strings.EqualFold(e.NamespaceLabel, want) ||
		(IsMCPNamespace(e.Namespace) && e.Namespace == MCPNamespace(want))
}

func searchTerms(q string) []string {
	f := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	slices.Sort(f)
	return slices.Compact(f)
}

// searchScore counts the query terms a tool matches and weighs where: name 3,
// namespace 2, description or search hint 1.
func searchScore(e *Entry, terms []string) (matched, score int) {
	name := strings.ToLower(e.Name)
	ns := strings.ToLower(e.Namespace + " " + e.NamespaceLabel)
	desc := strings.ToLower(e.Description + " " + e.SearchHint)
	for _, t := range terms {
		s := 0
		if strings.Contains(name, t) {
			s += 3
		}
		if strings.Contains(ns, t) {
			s += 2
		}
		if strings.Contains(desc, t) {
			s++
		}
		if s > 0 {
			matched++
			score += s
		}
	}
	return matched, score
}

// inspect is tool_inspect: a tool's full signature; records it in the ledger.
func (p *Pipeline) inspect(ctx context.Context, raw json.RawMessage, _ func(Progress)) (Result, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return Result{}, err
	}
	call, scope, pool := p.metaContext(ctx)
	rec := resolve(pool, a.Name)
	if rec == nil {
		return Result{}, p.targetNotFound(a.Name, pool, scope)
	}
	e := rec.entry
	p.record(sessionOf(call), rec.def.Name)
	var b strings.Builder
	fmt.Fprintf(&b, "tool: %s\nnamespace: %s", e.Name, e.Namespace)
	if e.NamespaceLabel != "" && e.NamespaceLabel != e.Namespace {
		fmt.Fprintf(&b, " (%s)", e.NamespaceLabel)
	}
	fmt.Fprintf(&b, "\ndescription: %s\nflags: %s\nparameters (JSON Schema): %s\n", e.Description, flagList(e), rec.def.Parameters)
	if len(e.OutputSchema) > 0 {
		fmt.Fprintf(&b, "output (JSON Schema): %s\n", e.OutputSchema)
	}
	if e.NeedsApproval {
		fmt.Fprintf(&b, "This tool needs approval: call %s directly, not through tool_invoke.", e.Name)
	} else {
		fmt.Fprintf(&b, "Call it with tool_invoke {\"name\": %q, \"arguments\": {…}}.", e.Name)
	}
	display, _ := json.Marshal(map[string]any{"name": e.Name, "namespace": e.Namespace, "description": e.Description, "parameters": rec.def.Parameters})
	return Result{Content: b.String(), Display: display}, nil
}

func flagList(e *Entry) string {
	var f []string
	if e.ReadOnly {
		f = append(f, "read-only")
	}
	if e.Destructive {
		f = append(f, "destructive")
	}
	if e.ConcurrencySafe {
		f = append(f, "concurrency-safe")
	}
	if e.NeedsApproval {
		f = append(f, "needs approval")
	}
	if len(f) == 0 {
		return "none"
	}
	return strings.Join(f, ", ")
}

// targetNotFound is the error of a meta tool naming an unknown tool; its message is what
// the model reads.
func (p *Pipeline) targetNotFound(name string, pool []*record, scope Scope) *apperr.Error {
	o := p.notFound(name, pool, scope)
	return apperr.New(apperr.ToolNotFound, "%s", strings.TrimPrefix(o.Content, "Error: ")).WithParam("name", name)
}

// runInvoke is tool_invoke: gates, then the target through the same pipeline.
func (p *Pipeline) runInvoke(ctx context.Context, call Call, v any, emit func(Progress), depth int) Outcome {
	m, _ := v.(map[string]any)
	name, _ := m["name"].(string)
	refuse := func(code apperr.Code, msg string) Outcome {
		return Outcome{Status: StatusError, Content: "Error: " + msg, Err: apperr.New(code, "%s", msg).WithParam("name", name)}
	}
	if depth > 0 || isMetaName(name) {
		return refuse(apperr.ToolInputRejected, fmt.Sprintf("tool_invoke cannot call %s; call it directly.", name)).
			withReason("meta tools are called directly")
	}
	scope := p.scopeFor(call)
	rec := p.reg.find(scope, name)
	if rec == nil {
		return p.notFound(name, p.reg.active(scope), scope)
	}
	target := rec.def.Name
	if rec.entry.NeedsApproval {
		return refuse(apperr.ToolNeedsDirectCall, fmt.Sprintf("%s needs the user's approval, so it cannot run through tool_invoke. "+
			"Call %s directly by its name.", target, target))
	}
	if !p.Inspected(sessionOf(call), target) {
		return refuse(apperr.ToolNotInspected, fmt.Sprintf("inspect %s with tool_inspect (or tool_search with verbose=true) "+
			"before invoking it, so you know its parameters.", target))
	}
	args := []byte("{}")
	if a, ok := m["arguments"]; ok && a != nil {
		args, _ = json.Marshal(a)
	}
	inner := call
	inner.Name = target
	inner.Arguments = string(args)
	return p.runOne(ctx, inner, emit, depth+1)
}

func (o Outcome) withReason(reason string) Outcome {
	if o.Err != nil {
		o.Err = o.Err.WithParam("reason", reason)
	}
	return o
}

// readResult is tool_read_result: a byte range of a spilled result of this session.
func (p *Pipeline) readResult(ctx context.Context, raw json.RawMessage, _ func(Progress)) (Result, error) {
	var a struct {
		CallID string `json:"call_id"`
		Offset int    `json:"offset"`
		Length int    `json:"length"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return Result{}, err
	}
	call, _ := CallFromContext(ctx)
	session := sessionOf(call)
	path := filepath.Join(p.sessionDir(session), safeFileName(a.CallID, "call")+".txt")
	f, err := os.Open(path)
	if err != nil {
		return Result{}, apperr.Wrap(err, apperr.NotFound, "no saved result for call %q in this session", a.CallID)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Result{}, err
	}
	size := int(st.Size())
	if a.Offset >= size {
		return Result{Content: fmt.Sprintf("[Offset %d is at or past the end: the result has %d bytes.]", a.Offset, size)}, nil
	}
	n := min(cmp.Or(a.Length, readDefaultLength), readMaxLength)
	// Read a few bytes either side so the range can be moved to rune boundaries.
	start := max(0, a.Offset-utf8.UTFMax)
	buf := make([]byte, min(size-start, n+2*utf8.UTFMax))
	if _, err := f.ReadAt(buf, int64(start)); err != nil && !errors.Is(err, io.EOF) {
		return Result{}, err
	}
	lo := a.Offset - start
	for lo > 0 && lo < len(buf) && !utf8.RuneStart(buf[lo]) {
		lo--
	}
	hi := min(len(buf), a.Offset-start+n)
	for hi < len(buf) && hi > lo && !utf8.RuneStart(buf[hi]) {
		hi--
	}
	from, to := start+lo, start+hi
	chunk := string(buf[lo:hi])
	footer := fmt.Sprintf("\n\n[Bytes %d–%d of %d.", from, to, size)
	if to < size {
		footer += fmt.Sprintf(" Next: %s {\"call_id\": %q, \"offset\": %d}.]", readResultName, a.CallID, to)
	} else {
		footer += " This is the end.]"
	}
	return Result{Content: chunk + footer}, nil
}

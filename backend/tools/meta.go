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
	"github.com/google/jsonschema-go/jsonschema"
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

// The meta tools' inputs; their schemas are generated (Typed).
type (
	searchInput struct {
		Query     string `json:"query,omitempty" jsonschema:"Keywords to match in tool names and descriptions; empty lists the namespace"`
		Namespace string `json:"namespace,omitempty" jsonschema:"Only search this namespace, e.g. mcp:<server>"`
		Verbose   bool   `json:"verbose,omitempty" jsonschema:"Include full argument schemas"`
		Limit     int    `json:"limit,omitempty" jsonschema:"Most tools to return (default 10)"`
	}
	inspectInput struct {
		Name string `json:"name" jsonschema:"Wire name of the tool"`
	}
	invokeInput struct {
		Name      string         `json:"name" jsonschema:"Wire name of the tool"`
		Arguments map[string]any `json:"arguments,omitempty" jsonschema:"Arguments for the tool, as its schema describes"`
	}
	readResultInput struct {
		CallID string `json:"call_id" jsonschema:"Id of the call whose result was truncated"`
		Offset int    `json:"offset,omitempty" jsonschema:"Byte offset to start at"`
		Length int    `json:"length,omitempty" jsonschema:"Bytes to read (default 20000)"`
	}
)

// bound sets an integer property's limits (max < 0: none).
func bound(prop string, lo, hi float64) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		p.Minimum = &lo
		if hi >= 0 {
			p.Maximum = &hi
		}
	}
}

// metaEntries are the meta tools, run by p (nil: only their definitions are needed).
// tool_invoke's own run is never called: the pipeline runs its target (runInvoke).
func metaEntries(p *Pipeline) []Entry {
	return []Entry{
		Typed(TypedTool[inspectInput]{
			Name: inspectName, ReadOnly: true, ConcurrencySafe: true, Run: p.inspect,
			Description: "Show the full signature of a tool: description, JSON Schema of its arguments and flags. " +
				"A folded tool must be inspected (or found with tool_search verbose=true) before tool_invoke accepts it.",
		}),
		Typed(TypedTool[invokeInput]{
			Name: invokeName, ReadOnly: true,
			Run: func(context.Context, invokeInput, func(Progress)) (Result, error) {
				return Result{}, errors.New("tool_invoke runs in the pipeline")
			},
			Description: "Call a folded tool (see <DEFERRED_TOOLS>) by name with arguments that match its schema. " +
				"Inspect it first. It runs under the same permission rules and asks for the same approval as a direct call.",
		}),
		Typed(TypedTool[searchInput]{
			Name: searchName, ReadOnly: true, ConcurrencySafe: true, Run: p.search, Refine: bound("limit", 1, searchListLimit),
			Description: "Search the folded tools (see <DEFERRED_TOOLS>) by keywords and/or namespace; results are grouped by namespace. " +
				"verbose=true also returns each tool's full argument schema and counts as inspecting it.",
		}),
		Typed(TypedTool[readResultInput]{
			Name: readResultName, ReadOnly: true, ConcurrencySafe: true, Run: p.readResult,
			MaxResultBytes: -1, // bounded by its own length limit
			Refine: func(s *jsonschema.Schema) {
				bound("offset", 0, -1)(s)
				bound("length", 1, readMaxLength)(s)
			},
			Description: "Read more of a tool result that was too large to show in full, by byte offset.",
		}),
	}
}

// foldingMetaDefinitions are the three tools that replace folded ones, sorted by name.
func foldingMetaDefinitions() []Definition {
	var out []Definition
	for _, e := range metaEntries(nil) {
		if e.Name != readResultName {
			out = append(out, Definition{Name: e.Name, Description: e.Description, Parameters: e.InputSchema})
		}
	}
	return out
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
	entries := metaEntries(p)
	p.meta = make(map[string]*record, len(entries))
	for i := range entries {
		e := &entries[i]
		e.Namespace, e.Defer = NamespaceMeta, DeferNever
		params, rs, err := compileSchema(e.InputSchema, false)
		if err != nil {
			panic(fmt.Sprintf("tools: meta tool %s has a bad schema: %v", e.Name, err)) // a bug caught by every test
		}
		// Token costs are counted on first use: loading the tokenizer's vocabulary is
		// most of the CPU of a CLI command or of `serve` printing its URL.
		def := Definition{Name: e.Name, Description: e.Description, Parameters: e.InputSchema}
		e.InputSchema = params
		p.meta[e.Name] = &record{entry: e, def: def, schema: rs}
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
		costs[i] = ToolCost{Name: rec.def.Name, Defer: rec.entry.Defer, Tokens: rec.tokens}
	}
	if scope.FoldAll {
		return planDeferral(costs, true)
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
func (p *Pipeline) search(ctx context.Context, a searchInput, _ func(Progress)) (Result, error) {
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
func (p *Pipeline) inspect(ctx context.Context, a inspectInput, _ func(Progress)) (Result, error) {
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
	fmt.Fprintf(&b, "Call it with tool_invoke {\"name\": %q, \"arguments\": {…}}.", e.Name)
	if e.Asks() {
		b.WriteString(" It needs the user's approval, asked for as for a direct call.")
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
	if e.Asks() {
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

// runInvoke is tool_invoke: gates, then the target through the same pipeline. The inner
// call keeps the outer call's id, session and message and takes the target's name, so
// the permission step (rules, mode, the approval dialog and its parts) sees exactly the
// call a direct call of the target would be: folding never bypasses approval.
func (p *Pipeline) runInvoke(ctx context.Context, call Call, args json.RawMessage, emit func(Progress), obs Observer, depth int) Outcome {
	in, err := decodeInput[invokeInput](args)
	if err != nil {
		return argsInvalid(invokeName, err.Error(), "")
	}
	name := in.Name
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
	if !p.Inspected(sessionOf(call), target) {
		return refuse(apperr.ToolNotInspected, fmt.Sprintf("inspect %s with tool_inspect (or tool_search with verbose=true) "+
			"before invoking it, so you know its parameters.", target))
	}
	inner := call
	inner.Name = target
	inner.Arguments = "{}"
	if in.Arguments != nil {
		b, _ := json.Marshal(in.Arguments)
		inner.Arguments = string(b)
	}
	return p.runOne(ctx, inner, emit, obs, depth+1)
}

func (o Outcome) withReason(reason string) Outcome {
	if o.Err != nil {
		o.Err = o.Err.WithParam("reason", reason)
	}
	return o
}

// readResult is tool_read_result: a byte range of a spilled result of this session.
func (p *Pipeline) readResult(ctx context.Context, a readResultInput, _ func(Progress)) (Result, error) {
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

package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Options configure a Pipeline; the zero value works.
type Options struct {
	// DataDir is the data directory; large results go to <DataDir>/tool-results/<session>/.
	// Empty means os.TempDir()/cairn.
	DataDir string
	// Permission decides whether a call may run; nil means AllowAll.
	Permission Permission
	// PreHooks and PostHooks run around every call, in order.
	PreHooks  []PreHook
	PostHooks []PostHook
	// MaxParallel bounds concurrency-safe calls running at once; 0 means 8.
	MaxParallel int
	// StopGrace is how long a stopped or timed-out tool may take to return before the
	// pipeline gives up waiting for it; 0 means 2 s.
	StopGrace time.Duration
	// PreviewBytes is how much of a spilled result the model sees; 0 means 4096.
	PreviewBytes int
	// Disabled returns the wire names the user turned off; they are left out of every
	// request. Nil means none.
	Disabled func(ctx context.Context) (map[string]bool, error)
}

// Pipeline runs tool calls through the lifecycle of TOOL-3 and assembles each request's
// tool set (TOOL-2, TOOL-4). It implements the chat loop's ToolRunner. It holds the
// per-session inspect ledger, remembers each session's latest scope and spills large
// results under the session's folder; call Forget when a session is deleted.
type Pipeline struct {
	reg         *Registry
	perm        Permission
	pre         []PreHook
	post        []PostHook
	parallel    int
	grace       time.Duration
	preview     int
	disabled    func(ctx context.Context) (map[string]bool, error)
	resultDir   string
	imageDir    string
	meta        map[string]*record // tool_search, tool_inspect, tool_invoke, tool_read_result
	invoke      *record
	readDef     Definition
	readTok     int
	readTokOnce sync.Once

	mu      sync.Mutex
	ledger  map[string]map[string]bool // session → wire names inspected
	scopes  map[string]Scope           // session → scope of its latest Select
	spilled map[string]bool            // sessions with results on disk
}

// NewPipeline returns a pipeline over reg.
func NewPipeline(reg *Registry, opt Options) *Pipeline {
	p := &Pipeline{
		reg:      reg,
		perm:     opt.Permission,
		pre:      slices.Clone(opt.PreHooks),
		post:     slices.Clone(opt.PostHooks),
		parallel: cmp.Or(opt.MaxParallel, 8),
		grace:    cmp.Or(opt.StopGrace, 2*time.Second),
		preview:  cmp.Or(opt.PreviewBytes, 4096),
		disabled: opt.Disabled,
		ledger:   map[string]map[string]bool{},
		scopes:   map[string]Scope{},
		spilled:  map[string]bool{},
	}
	if p.perm == nil {
		p.perm = AllowAll{}
	}
	dir := opt.DataDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "cairn")
	}
	p.resultDir = filepath.Join(dir, "tool-results")
	p.imageDir = filepath.Join(dir, "tool-images")
	p.initMeta()
	return p
}

// Registry is the registry the pipeline reads.
func (p *Pipeline) Registry() *Registry { return p.reg }

// Select assembles the tools and instructions of one request (Registry.SelectActive)
// and remembers the scope for the session's calls. Once a result of the session was
// spilled to disk, tool_read_result is offered too.
func (p *Pipeline) Select(ctx context.Context, scope Scope) (Selection, error) {
	if err := ctx.Err(); err != nil {
		return Selection{}, apperr.Wrap(err, apperr.Canceled, "select tools")
	}
	if p.disabled != nil {
		off, err := p.disabled(ctx)
		if err != nil {
			return Selection{}, err
		}
		if len(off) > 0 {
			merged := maps.Clone(scope.Disabled)
			if merged == nil {
				merged = map[string]bool{}
			}
			maps.Copy(merged, off)
			scope.Disabled = merged
		}
	}
	if scope.SessionID != "" {
		kept := scope // the caller may reuse its slices and map
		kept.Toolsets, kept.KBs, kept.Files = slices.Clone(scope.Toolsets), slices.Clone(scope.KBs), slices.Clone(scope.Files)
		kept.Disabled = maps.Clone(scope.Disabled)
		p.mu.Lock()
		p.scopes[scope.SessionID] = kept
		p.mu.Unlock()
	}
	sel := p.reg.SelectActive(ctx, scope)
	if scope.Model.SupportsTools && p.hasSpills(scope.SessionID) {
		sel.Tools = append(sel.Tools, p.readDef)
		sel.ToolTokens += p.readTokens()
		slices.SortFunc(sel.Tools, func(a, b Definition) int { return cmp.Compare(a.Name, b.Name) })
	}
	return sel, nil
}

// Describe names a tool for people by its wire name or alias: a registered tool, or one of
// the meta tools; false when no such tool is known (a model's invention, a removed server).
func (p *Pipeline) Describe(name string) (ToolRef, bool) {
	if rec, ok := p.meta[name]; ok {
		return rec.entry.Ref(), true
	}
	if e, ok := p.reg.Lookup(name); ok {
		return e.Ref(), true
	}
	return ToolRef{}, false
}

// Forget drops everything the pipeline keeps for a session that was deleted: its
// inspect ledger, its latest scope and its spilled results on disk, so neither memory
// nor the data directory grows with sessions that are gone. A session still running
// must be stopped first: a result spilled after Forget stays.
func (p *Pipeline) Forget(sessionID string) error {
	p.mu.Lock()
	delete(p.ledger, sessionID)
	delete(p.scopes, sessionID)
	delete(p.spilled, sessionID)
	p.mu.Unlock()
	if sessionID == "" {
		return nil // calls without a session share one folder; no session owns it
	}
	if err := os.RemoveAll(p.sessionDir(sessionID)); err != nil {
		return fmt.Errorf("remove the saved results of session %s: %w", sessionID, err)
	}
	if err := os.RemoveAll(p.imageSessionDir(sessionID)); err != nil {
		return fmt.Errorf("remove the tool images of session %s: %w", sessionID, err)
	}
	return nil
}

// RunBatch runs the calls of one model turn and returns their outcomes in the order of
// calls. Consecutive concurrency-safe calls run in parallel, the others one at a time.
// The observer hears CallStarted and CallFinished for every call, and CallProgress in
// between, never concurrently (the pipeline serialises it). Once ctx ends, running calls
// are stopped and the remaining ones end as tool-stopped without running. It never panics.
func (p *Pipeline) RunBatch(ctx context.Context, calls []Call, obs Observer) []Outcome {
	outs := make([]Outcome, len(calls))
	b := &batchObserver{obs: obs}
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && p.concurrencySafe(calls[j]) {
			j++
		}
		if j-i < 2 {
			outs[i] = p.runCall(ctx, calls[i], b)
			i++
			continue
		}
		var wg sync.WaitGroup
		sem := make(chan struct{}, p.parallel)
		for k := i; k < j; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				outs[k] = p.runCall(ctx, calls[k], b)
			}()
		}
		wg.Wait()
		i = j
	}
	return outs
}

// runCall brackets one call with the observer's started/finished.
func (p *Pipeline) runCall(ctx context.Context, call Call, b *batchObserver) (out Outcome) {
	st := &callState{}
	b.started(call)
	defer func() {
		if r := recover(); r != nil {
			out = failed(call, fmt.Errorf("internal error: %v", r))
		}
		out.CallID, out.Name = call.ID, call.Name
		b.finished(st, out)
	}()
	return p.runOne(ctx, call, b.emitter(call.ID, st), b.obs, 0)
}

// runOne is the lifecycle of TOOL-3 for one call. obs is the batch's observer, for the
// permission step; depth is 1 for a call made through tool_invoke.
func (p *Pipeline) runOne(ctx context.Context, call Call, emit func(Progress), obs Observer, depth int) (out Outcome) {
	start := time.Now()
	var waited time.Duration // time spent in Permission (the user deciding) is not the tool's
	defer func() {
		out.CallID, out.Name = call.ID, call.Name
		out.Duration = max(time.Since(start)-waited, time.Nanosecond)
	}()
	if ctx.Err() != nil {
		return Stopped(call.ID, call.Name, nil)
	}

	// 1. Look up (wire name, then aliases) among the tools of the call's scope.
	scope := p.scopeFor(call)
	rec := p.lookup(scope, call.Name)
	if rec == nil {
		return p.notFound(call.Name, p.reg.active(scope), scope)
	}
	e := rec.entry
	kind := e.progressKind()
	progress := func(pr Progress) {
		if pr.Kind == "" {
			pr.Kind = kind
		}
		emit(pr)
	}

	// 2. Parse and validate the arguments against the schema.
	args, v, bad := parseArgs(e.Name, call.Arguments)
	if bad != nil {
		return *bad
	}
	if msg, ok := validateArgs(rec.schema, v); !ok {
		return argsInvalid(e.Name, msg, "")
	}
	if rec == p.invoke {
		return p.runInvoke(ctx, call, args, emit, obs, depth)
	}

	ctx = withCall(ctx, call)
	// 3. The tool's own validation.
	if e.ValidateInput != nil {
		if err := safeCall(func() error { return e.ValidateInput(ctx, args) }); err != nil {
			return inputRejected(e.Name, err)
		}
	}

	// 4. Pre-call hooks: rewrite, decide, or stop.
	var hookDecision *Decision
	for _, h := range p.pre {
		var res PreHookResult
		err := safeCall(func() error {
			var err error
			res, err = h(ctx, call, e, args)
			return err
		})
		switch {
		case err != nil:
			return stoppedByHook(e.Name, err.Error())
		case res.Stop:
			return stoppedByHook(e.Name, cmp.Or(res.Reason, "no reason given"))
		}
		if res.Args != nil {
			na, ok := p.revalidate(rec, res.Args)
			if !ok {
				return argsInvalid(e.Name, na, " after a hook rewrote them")
			}
			args = res.Args
		}
		if res.Decision != nil {
			d := *res.Decision
			d.Source = cmp.Or(d.Source, SourceHook)
			hookDecision = &d
			if d.Behavior == BehaviorDeny {
				break
			}
		}
	}

	// 5. Permission.
	if hookDecision != nil && hookDecision.Behavior == BehaviorDeny {
		return denied(e.Name, *hookDecision)
	}
	t := time.Now()
	var d Decision
	err := safeCall(func() error {
		var err error
		d, err = p.perm.Check(ctx, PermissionRequest{Call: call, Entry: e, Args: args, Hook: hookDecision, Observer: obs})
		return err
	})
	waited = time.Since(t)
	switch {
	case ctx.Err() != nil:
		return Stopped(call.ID, e.Name, nil)
	case err != nil:
		return denied(e.Name, Decision{Behavior: BehaviorDeny, Reason: err.Error()})
	case d.Behavior != BehaviorAllow:
		if d.Behavior == BehaviorAsk {
			d.Reason = cmp.Or(d.Reason, "nobody could be asked for approval")
		}
		return denied(e.Name, d)
	}
	if d.Args != nil {
		na, ok := p.revalidate(rec, d.Args)
		if !ok {
			return argsInvalid(e.Name, na, " after they were edited for approval")
		}
		args = d.Args
	}

	// 6. Execute with cancellation and progress; 7. map the result.
	res, runErr, interrupted := p.execute(ctx, e, args, progress)
	switch {
	case interrupted && ctx.Err() != nil:
		return Stopped(call.ID, e.Name, nil)
	case interrupted:
		return timeout(e)
	}
	out = p.mapResult(call, e, res, runErr)

	// 8. Post-call hooks.
	for _, h := range p.post {
		var next Outcome
		err := safeCall(func() error {
			var err error
			next, err = h(ctx, call, e, out)
			return err
		})
		if err != nil {
			return failed(call, fmt.Errorf("post-call hook: %w", err))
		}
		out = next
	}
	return out
}

// execute runs the tool in its own goroutine so that a tool ignoring ctx cannot hold the
// batch beyond StopGrace, and a panicking tool cannot take the process down. interrupted
// is true when the stop or the entry's timeout ended the call: the tool failed after its
// context ended, or was abandoned. A tool that finished successfully keeps its result
// even if the stop came meanwhile: what it did has happened.
func (p *Pipeline) execute(ctx context.Context, e *Entry, args json.RawMessage, progress func(Progress)) (res Result, err error, interrupted bool) {
	var cctx context.Context
	var cancel context.CancelFunc
	if e.Timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, e.Timeout)
	} else {
		cctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	if e.Cancellable {
		// No hand-off to another goroutine: on a fast transport it is a measurable part
		// of the call (two more wake-ups).
		defer func() {
			if v := recover(); v != nil {
				res, err, interrupted = Result{}, fmt.Errorf("the tool crashed: %v", v), false
			}
		}()
		res, err = e.Execute(cctx, args, progress)
		return res, err, err != nil && cctx.Err() != nil
	}
	type ret struct {
		res Result
		err error
	}
	done := make(chan ret, 1)
	go func() {
		var r ret
		defer func() {
			if v := recover(); v != nil {
				r = ret{err: fmt.Errorf("the tool crashed: %v", v)}
			}
			done <- r
		}()
		r.res, r.err = e.Execute(cctx, args, progress)
	}()
	select {
	case r := <-done:
		return r.res, r.err, r.err != nil && cctx.Err() != nil
	case <-cctx.Done():
	}
	grace := time.NewTimer(p.grace)
	defer grace.Stop()
	select {
	case r := <-done:
		return r.res, r.err, r.err != nil
	case <-grace.C:
		return Result{}, cctx.Err(), true // abandoned: the tool did not honour ctx
	}
}

func (p *Pipeline) revalidate(rec *record, args json.RawMessage) (string, bool) {
	_, v, bad := parseArgs(rec.entry.Name, string(args))
	if bad != nil {
		return "they are not one valid JSON object", false
	}
	return validateArgs(rec.schema, v)
}

// lookup resolves meta tools first (their names are reserved), then the scope's tools.
func (p *Pipeline) lookup(scope Scope, name string) *record {
	if rec, ok := p.meta[name]; ok {
		return rec
	}
	return p.reg.find(scope, name)
}

// concurrencySafe says whether a call may run alongside its neighbours. tool_invoke
// inherits its target's flag.
func (p *Pipeline) concurrencySafe(call Call) bool {
	scope := p.scopeFor(call)
	rec := p.lookup(scope, call.Name)
	if rec == p.invoke {
		var a struct {
			Name string `json:"name"`
		}
		if json.Unmarshal([]byte(call.Arguments), &a) != nil {
			return false
		}
		rec = p.reg.find(scope, a.Name)
	}
	return rec != nil && rec.entry.ConcurrencySafe && !rec.entry.Gated()
}

// scopeFor is the call's scope, or the session's latest selected scope when the caller
// left Call.Scope empty.
func (p *Pipeline) scopeFor(call Call) Scope {
	s := call.Scope
	if s.SessionID == "" && s.SessionKind == "" && len(s.Toolsets) == 0 && len(s.KBs) == 0 &&
		len(s.Files) == 0 && len(s.Disabled) == 0 && s.Model == (ModelCaps{}) {
		p.mu.Lock()
		remembered, ok := p.scopes[call.SessionID]
		p.mu.Unlock()
		if ok {
			s = remembered
		}
	}
	return s
}

func sessionOf(call Call) string { return cmp.Or(call.SessionID, call.Scope.SessionID) }

// notFound lists close names so the model can correct itself.
func (p *Pipeline) notFound(name string, pool []*record, scope Scope) Outcome {
	cands := make([]string, 0, len(pool)+len(p.meta))
	for _, rec := range pool {
		cands = append(cands, rec.def.Name)
		cands = append(cands, rec.entry.Aliases...)
	}
	for n := range p.meta {
		cands = append(cands, n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Error: there is no tool named %q.", name)
	if close := closeNames(name, cands); len(close) > 0 {
		b.WriteString(" Did you mean: " + strings.Join(close, ", ") + "?")
	} else if len(pool) > 0 {
		names := make([]string, 0, 20)
		for i := 0; i < len(pool) && i < 20; i++ {
			names = append(names, pool[i].def.Name)
		}
		b.WriteString(" Available tools include: " + strings.Join(names, ", "))
		if len(pool) > 20 {
			fmt.Fprintf(&b, " and %d more", len(pool)-20)
		}
		b.WriteString(".")
	} else {
		b.WriteString(" No tools are available in this session.")
	}
	if len(p.reg.folded(scope, pool)) > 0 {
		b.WriteString(" More tools are folded: find them with tool_search.")
	}
	return Outcome{
		Status: StatusError, Content: b.String(),
		Err: apperr.New(apperr.ToolNotFound, "unknown tool %q", name).WithParam("name", name),
	}
}

// batchObserver serialises the observer and drops progress that arrives after a call
// ended (a tool abandoned after StopGrace may still report).
type batchObserver struct {
	mu  sync.Mutex
	obs Observer
}

type callState struct{ done bool }

func (b *batchObserver) started(c Call) {
	if b.obs == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	safeNotify(func() { b.obs.CallStarted(c) })
}

func (b *batchObserver) finished(st *callState, o Outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st.done = true
	if b.obs != nil {
		safeNotify(func() { b.obs.CallFinished(o) })
	}
}

func (b *batchObserver) emitter(callID string, st *callState) func(Progress) {
	return func(pr Progress) {
		if b.obs == nil {
			return
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if st.done {
			return
		}
		pr.CallID = callID
		safeNotify(func() { b.obs.CallProgress(pr) })
	}
}

func safeNotify(f func()) {
	defer func() { _ = recover() }()
	f()
}

// safeCall runs caller-supplied code (hooks, validators, permission) turning a panic
// into an error.
func safeCall(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return f()
}

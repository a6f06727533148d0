package mcp

import (
	"context"
	"sync"

	"github.com/cairn-app/cairn/backend/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation is one elicitation/create request of a server. Call is the tool call that
// was running on that server when it asked, when there was exactly one (MCP ties the
// request to no call on the wire Cairn can read); the handler's context then also ends
// with that call, so a stopped or timed-out call closes the question.
type Elicitation struct {
	ServerID string
	Server   string // its name for people
	Call     *tools.Call
	Params   *mcp.ElicitParams
}

// ElicitFunc answers one elicitation request: accept (with the form's content), decline
// or cancel. Omitted fields get the requested schema's defaults (go-sdk applies them
// after validating the content).
type ElicitFunc func(ctx context.Context, e Elicitation) (*mcp.ElicitResult, error)

// runningCalls knows the tool calls in flight per server; its zero value is ready.
type runningCalls struct {
	mu    sync.Mutex
	next  uint64
	calls map[string]map[uint64]context.Context // server id → call contexts
}

// add notes a call of server id running on ctx; the returned func forgets it.
func (r *runningCalls) add(id string, ctx context.Context) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[string]map[uint64]context.Context{}
	}
	if r.calls[id] == nil {
		r.calls[id] = map[uint64]context.Context{}
	}
	r.next++
	n := r.next
	r.calls[id][n] = ctx
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.calls[id], n)
		if len(r.calls[id]) == 0 {
			delete(r.calls, id)
		}
	}
}

// only returns the context of the one call running on server id, if there is one.
func (r *runningCalls) only(id string) (context.Context, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls[id]) != 1 {
		return nil, false
	}
	for _, ctx := range r.calls[id] {
		return ctx, true
	}
	return nil, false
}

// elicitHandler is the go-sdk handler of one server's connection: it hands the request,
// with the call it belongs to when Cairn can tell, to Config.Elicit.
func (m *Manager) elicitHandler(s *server) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	id := s.id
	return func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		s.log.Eventf("the server asks for input: %s", req.Params.Message)
		e := Elicitation{ServerID: id, Server: s.config().Name, Params: req.Params}
		if cctx, ok := m.running.only(id); ok {
			if c, ok := tools.CallFromContext(cctx); ok {
				e.Call = &c
			}
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(cctx, cancel)()
		}
		return m.elicit(ctx, e)
	}
}

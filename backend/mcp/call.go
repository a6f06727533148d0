package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallTool calls one tool of a server (connecting first if needed) and maps the result to
// what the model reads. progress, when not nil, receives the server's progress
// notifications for this call only: the call gets its own progress token, and
// notifications that arrive after the call ended (servers keep sending after a cancel)
// are dropped. When ctx ends, go-sdk sends notifications/cancelled and the session stays
// usable for the next call.
func (m *Manager) CallTool(ctx context.Context, id, tool string, args json.RawMessage, progress func(tools.Progress)) (tools.Result, error) {
	s, err := m.get(id)
	if err != nil {
		return tools.Result{}, err
	}
	c, err := s.session(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	m.offerWorkspace(ctx, s, c)
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	if progress != nil {
		tok := m.progress.register(progress)
		defer m.progress.unregister(tok)
		params.SetProgressToken(tok)
	}
	cfg := s.config()
	if d := cfg.callTimeout(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errCallTimeout)
		defer cancel()
	}
	defer m.running.add(id, ctx)()
	res, err := c.cs.CallTool(ctx, params)
	if err != nil {
		if errors.Is(context.Cause(ctx), errCallTimeout) {
			return tools.Result{}, callTimeoutError(cfg, tool, err)
		}
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		if ae, ok := m.signInLost(s, err); ok {
			return tools.Result{}, ae
		}
		if errors.Is(err, mcp.ErrConnectionClosed) {
			name := s.config().Name
			return tools.Result{}, apperr.Wrap(err, apperr.MCPUnreachable, "call %s on %s", tool, name).
				WithParam("server", name).WithParam("url", s.config().URL).WithParam("message", "the connection closed during the call")
		}
		return tools.Result{}, callFailed(err, s.config().Name, tool)
	}
	return mapResult(res), nil
}

// errCallTimeout is the cause of a call's context when the server's call timeout ended it
// (not the caller's stop).
var errCallTimeout = errors.New("the server's call timeout passed")

// callTimeoutError says which setting gave the call its time, so the user can raise it.
func callTimeoutError(cfg Server, tool string, err error) *apperr.Error {
	secs := max(int(cfg.callTimeout()/time.Second), 1)
	return apperr.Wrap(err, apperr.MCPCallTimeout,
		"%s on MCP server %s did not finish within its call timeout (%d s; raise it in Settings → MCP or with cairn mcp edit --call-timeout)", tool, cfg.Name, secs).
		WithParam("server", cfg.Name).WithParam("tool", tool).WithParam("seconds", secs)
}

// callBackstop is the pipeline's bound of a call whose server has a call timeout d: a
// little longer, so CallTool's own error (mcp_call_timeout) is what the user sees.
func callBackstop(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d + 5*time.Second
}

// maxDisplay caps the structured copy of a result kept for the tool card.
const maxDisplay = 256 << 10

// mapResult turns an MCP result into text for the model (text parts verbatim, other
// parts described), hands its images over whole (the pipeline keeps them as files and
// names them in the text) and keeps the result as Display for the tool card, with each
// image's data left out (the card shows the saved file).
func mapResult(res *mcp.CallToolResult) tools.Result {
	var parts []string
	var images []tools.Image
	shown := *res
	shown.Content = make([]mcp.Content, len(res.Content))
	for i, c := range res.Content {
		shown.Content[i] = c
		switch v := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, v.Text)
		case *mcp.ImageContent:
			images = append(images, tools.Image{MIMEType: v.MIMEType, Data: v.Data})
			shown.Content[i] = &mcp.ImageContent{MIMEType: v.MIMEType, Meta: v.Meta, Annotations: v.Annotations}
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s: %s]", strings.TrimSpace(v.Name+" "+v.Title), v.URI))
		case *mcp.EmbeddedResource:
			if r := v.Resource; r != nil {
				if r.Text != "" {
					parts = append(parts, r.Text)
				} else {
					parts = append(parts, fmt.Sprintf("[resource %s %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
				}
			}
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out := tools.Result{Content: strings.Join(parts, "\n\n"), IsError: res.IsError, Images: images}
	if b, err := json.Marshal(&shown); err == nil && len(b) <= maxDisplay {
		out.Display = b
	}
	return out
}

// progressRouter maps progress tokens to the call that owns them.
type progressRouter struct {
	next    atomic.Uint64
	dropped atomic.Uint64

	mu     sync.Mutex
	calls  map[string]func(tools.Progress)
	onDrop func(token string) // tests: told of each dropped notification
}

func newProgressRouter() *progressRouter {
	return &progressRouter{calls: map[string]func(tools.Progress){}}
}

func (r *progressRouter) register(f func(tools.Progress)) string {
	tok := "cairn-" + strconv.FormatUint(r.next.Add(1), 10)
	r.mu.Lock()
	r.calls[tok] = f
	r.mu.Unlock()
	return tok
}

func (r *progressRouter) unregister(tok string) {
	r.mu.Lock()
	delete(r.calls, tok)
	r.mu.Unlock()
}

// deliver routes one notification; one for a token no call holds any more is dropped.
func (r *progressRouter) deliver(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	tok := fmt.Sprint(p.ProgressToken)
	r.mu.Lock()
	f, dropped := r.calls[tok], r.onDrop
	r.mu.Unlock()
	if f == nil {
		r.dropped.Add(1)
		if dropped != nil {
			dropped(tok)
		}
		return
	}
	f(tools.Progress{Message: p.Message, Progress: p.Progress, Total: p.Total})
}

// callFailed is a tools/call the server answered with a JSON-RPC error: said once, in
// the server's own words (its message), naming the server and the tool.
func callFailed(err error, server, tool string) error {
	msg := err.Error()
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Message != "" {
		msg = we.Message
	}
	return apperr.New(apperr.MCPCallFailed, "%s on MCP server %s: %s", tool, server, msg).
		WithParam("server", server).WithParam("tool", tool).WithParam("message", msg)
}

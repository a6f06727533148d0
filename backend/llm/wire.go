package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// bodyPatch is what a request needs that go-openai's request type cannot express: extra
// top-level fields (reasoning controls) and reasoning_content on given messages, an empty
// one included (go-openai drops an empty reasoning_content).
type bodyPatch struct {
	fields    map[string]any
	reasoning map[int]string // message index → reasoning_content
}

type patchKey struct{}

func (p *bodyPatch) empty() bool { return p == nil || (len(p.fields) == 0 && len(p.reasoning) == 0) }

// fieldNames lists the top-level fields the patch adds, for error messages.
func (p *bodyPatch) fieldNames() []string {
	if p == nil {
		return nil
	}
	out := make([]string, 0, len(p.fields))
	for k := range p.fields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// apply rewrites a JSON request body with the patch.
func (p *bodyPatch) apply(body []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	for k, v := range p.fields {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		top[k] = b
	}
	if len(p.reasoning) > 0 {
		var msgs []map[string]json.RawMessage
		if err := json.Unmarshal(top["messages"], &msgs); err != nil {
			return nil, err
		}
		for i, r := range p.reasoning {
			if i < 0 || i >= len(msgs) {
				continue
			}
			b, _ := json.Marshal(r)
			msgs[i]["reasoning_content"] = b
		}
		b, err := json.Marshal(msgs)
		if err != nil {
			return nil, err
		}
		top["messages"] = b
	}
	return json.Marshal(top)
}

// wireDoer sits between go-openai and the HTTP client: it adds the request's bodyPatch
// to the body and lets the request's watchdog see every byte of the answer.
type wireDoer struct {
	next    *http.Client
	headers http.Header
}

func (d wireDoer) Do(req *http.Request) (*http.Response, error) {
	for name, vs := range d.headers {
		req.Header[name] = vs
	}
	if p, _ := req.Context().Value(patchKey{}).(*bodyPatch); !p.empty() && req.Body != nil {
		raw, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		if raw, err = p.apply(raw); err != nil {
			return nil, fmt.Errorf("add provider fields to the request: %w", err)
		}
		req.Body = io.NopCloser(bytes.NewReader(raw))
		req.ContentLength = int64(len(raw))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
	}
	resp, err := d.next.Do(req)
	if wd, _ := req.Context().Value(watchdogKey{}).(*watchdog); err == nil && wd != nil {
		resp.Body = &watchedBody{ReadCloser: resp.Body, wd: wd}
	}
	return resp, err
}

// Timeout causes: the provider sent nothing at all, or stopped sending.
var (
	errFirstByte = errors.New("no answer within the first-byte timeout")
	errIdle      = errors.New("the stream sent nothing within the idle timeout")
)

// watchdog cancels a request whose answer does not start within first, or that then
// sends nothing for idle. Every byte of the body counts (SSE comments included), so a
// provider that keeps the line alive while it thinks is not cut off.
type watchdog struct {
	mu      sync.Mutex
	timer   *time.Timer
	first   time.Duration
	idle    time.Duration
	started bool
	cancel  context.CancelCauseFunc
}

type watchdogKey struct{}

func startWatchdog(first, idle time.Duration, cancel context.CancelCauseFunc) *watchdog {
	wd := &watchdog{first: first, idle: idle, cancel: cancel}
	if first > 0 {
		wd.timer = time.AfterFunc(first, func() { cancel(errFirstByte) })
	}
	return wd
}

// activity records that bytes arrived.
func (w *watchdog) activity() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		w.started = true
		if w.timer != nil {
			w.timer.Stop()
			w.timer = nil
		}
		if w.idle > 0 {
			w.timer = time.AfterFunc(w.idle, func() { w.cancel(errIdle) })
		}
		return
	}
	if w.timer != nil {
		w.timer.Reset(w.idle)
	}
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.started = true
	w.timer = nil
}

type watchedBody struct {
	io.ReadCloser
	wd *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.wd.activity()
	}
	return n, err
}

// timeoutError is the error of an attempt its watchdog ended (nil when it did not, or
// when the caller's own ctx ended first). It names the limit that expired.
func timeoutError(ctx, actx context.Context, t target, req Request) *apperr.Error {
	if ctx.Err() != nil {
		return nil
	}
	cause := context.Cause(actx)
	var code apperr.Code
	var limit time.Duration
	switch {
	case errors.Is(cause, errFirstByte):
		code, limit = apperr.ModelFirstByteTimeout, req.FirstByteTimeout
	case errors.Is(cause, errIdle):
		code, limit = apperr.ModelStreamStalled, req.IdleTimeout
	default:
		return nil
	}
	e := apperr.Wrap(cause, code, "%s (%s): %v (%s)", t.baseURL, t.model, cause, limit).
		WithParam("url", hostURL(t.baseURL)).WithParam("seconds", int(math.Ceil(limit.Seconds())))
	if t.providerID != "" {
		e = e.WithParam("providerId", t.providerID)
	}
	return e
}

package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// collector records what a Handler received.
type collector struct {
	mu        sync.Mutex
	text      strings.Builder
	reasoning strings.Builder
	calls     map[int]ToolCall
	firsts    int
	retries   []RetryInfo
	gotText   chan struct{}
	once      sync.Once
}

func newCollector() *collector {
	return &collector{calls: map[int]ToolCall{}, gotText: make(chan struct{})}
}

func (c *collector) handler() Handler {
	return Handler{
		Text: func(d string) {
			c.mu.Lock()
			c.text.WriteString(d)
			c.mu.Unlock()
			c.once.Do(func() { close(c.gotText) })
		},
		Reasoning: func(d string) { c.mu.Lock(); c.reasoning.WriteString(d); c.mu.Unlock() },
		ToolCall: func(call ToolCall, _ string, first bool) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.calls[call.Index] = call
			if first {
				c.firsts++
			}
		},
		Retry: func(i RetryInfo) { c.mu.Lock(); c.retries = append(c.retries, i); c.mu.Unlock() },
	}
}

func testClient(t *testing.T, srv *llmtest.Server, retry RetryPolicy) *Client {
	t.Helper()
	hc := NewHTTPClient()
	t.Cleanup(hc.CloseIdleConnections)
	return NewClient(hc, "prov1", srv.URL, "sk-test", retry)
}

func userReq(model string) Request {
	return Request{Model: model, Messages: []Message{{Role: RoleUser, Content: "hi"}}}
}

func TestStreamTextReasoningUsage(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Reply{Reasoning: "思考一下 step by step", Text: "Hello, 世界! 🎉 done", ChunkRunes: 2, SplitWrites: true, Comments: true})
	c := newCollector()
	res, err := testClient(t, srv, DefaultRetry).Stream(context.Background(), userReq("m"), c.handler())
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Hello, 世界! 🎉 done" || c.text.String() != res.Text {
		t.Fatalf("text = %q / handler %q", res.Text, c.text.String())
	}
	if res.Reasoning != "思考一下 step by step" || c.reasoning.String() != res.Reasoning {
		t.Fatalf("reasoning = %q", res.Reasoning)
	}
	if res.FinishReason != "stop" {
		t.Fatalf("finish = %q", res.FinishReason)
	}
	if res.Usage == nil || res.Usage.TotalTokens == 0 || res.Usage.ReasoningTokens == 0 {
		t.Fatalf("usage = %+v", res.Usage)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].Body.Stream || reqs[0].Body.StreamOptions == nil || !reqs[0].Body.StreamOptions.IncludeUsage {
		t.Fatalf("request = %s", reqs[0].Raw)
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Fatalf("auth header = %q", got)
	}
}

func TestToolCallAccumulation(t *testing.T) {
	calls := []llmtest.ToolCall{
		{ID: "call_a", Name: "web_search", Arguments: `{"query":"weather in 北京","limit":3}`},
		{ID: "call_b", Name: "kb_search", Arguments: `{"q":"a \"quoted\" \\ path","n":[1,2]}`},
	}
	tests := []struct {
		name  string
		reply llmtest.Reply
	}{
		{"whole heads, 5-byte fragments", llmtest.Reply{ToolCalls: calls}},
		{"one byte per fragment", llmtest.Reply{ToolCalls: calls, ArgBytes: 1}},
		{"id, then name in halves", llmtest.Reply{ToolCalls: calls, SplitToolHead: true, ArgBytes: 2}},
		{"parallel calls interleaved", llmtest.Reply{ToolCalls: calls, Interleave: true, ArgBytes: 3}},
		{"interleaved with split heads", llmtest.Reply{ToolCalls: calls, Interleave: true, SplitToolHead: true}},
		{"no index, ids repeated", llmtest.Reply{ToolCalls: calls, NoIndex: true, Interleave: true}},
		{"text before the calls, split writes", llmtest.Reply{Text: "Let me look.", ToolCalls: calls, SplitWrites: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Enqueue(tt.reply)
			c := newCollector()
			res, err := testClient(t, srv, DefaultRetry).Stream(context.Background(), userReq("m"), c.handler())
			if err != nil {
				t.Fatal(err)
			}
			if res.FinishReason != "tool_calls" || len(res.ToolCalls) != 2 {
				t.Fatalf("finish %q, calls %+v", res.FinishReason, res.ToolCalls)
			}
			for i, want := range calls {
				got := res.ToolCalls[i]
				if got.ID != want.ID || got.Name != want.Name || got.Arguments != want.Arguments || got.Index != i {
					t.Errorf("call %d = %+v, want %+v", i, got, want)
				}
				if h := c.calls[i]; h != got {
					t.Errorf("handler's last view of call %d = %+v, want %+v", i, h, got)
				}
			}
			if c.firsts != 2 {
				t.Errorf("first-sight reports = %d, want 2", c.firsts)
			}
		})
	}
}

func TestAccumulatorGeneratesMissingIDs(t *testing.T) {
	var a accumulator
	zero, one := 0, 1
	d := func(idx *int, id, name, args string) toolCallDelta {
		var t toolCallDelta
		t.Index, t.ID, t.Function.Name, t.Function.Arguments = idx, id, name, args
		return t
	}
	a.add(0, d(&zero, "", "alpha", `{"x"`))
	a.add(0, d(&one, "", "beta", `{}`))
	a.add(0, d(&zero, "", "", `:1}`))
	got := a.finish()
	if len(got) != 2 || got[0].Arguments != `{"x":1}` || got[1].Name != "beta" {
		t.Fatalf("calls = %+v", got)
	}
	if got[0].ID == "" || got[1].ID == "" || got[0].ID == got[1].ID {
		t.Fatalf("ids = %q, %q", got[0].ID, got[1].ID)
	}
	// A real id arriving later replaces the made-up one.
	var b accumulator
	b.add(0, d(&zero, "", "alpha", ""))
	b.add(0, d(&zero, "call_real", "", "{}"))
	if g := b.finish(); len(g) != 1 || g[0].ID != "call_real" {
		t.Fatalf("calls = %+v", g)
	}
}

func closedPortURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

func TestErrorMapping(t *testing.T) {
	noRetry := RetryPolicy{}
	tests := []struct {
		name       string
		reply      llmtest.Reply
		want       apperr.Code
		action     string // expected action target or kind; "" = none expected
		param      string
		paramValue any
		partial    string // text that must have arrived before the error
	}{
		{"401 bad key", llmtest.Scenarios()["401"](llmtest.Request{}), apperr.ModelAuthFailed, "providers", "providerId", "prov1", ""},
		{"403 forbidden", llmtest.Reply{Status: 403, Error: &llmtest.APIError{Message: "Forbidden"}}, apperr.ModelAuthFailed, "providers", "", nil, ""},
		{"404 JSON unknown model", llmtest.Reply{Status: 404, Error: &llmtest.APIError{Message: "The model `nope` does not exist", Code: "model_not_found"}}, apperr.ModelNotFound, "providers", "model", "nope", ""},
		{"404 bare page: wrong base URL", llmtest.Reply{Status: 404, RawBody: "404 page not found"}, apperr.ProviderInvalid, "providers", "", nil, ""},
		{"400 unknown model (DeepSeek style)", llmtest.Reply{Status: 400, Error: &llmtest.APIError{Message: "Model Not Exist", Type: "invalid_request_error"}}, apperr.ModelNotFound, "providers", "model", "nope", ""},
		{"429 retry-after beyond the cap", llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "120"}, Error: &llmtest.APIError{Message: "Rate limit reached", Code: "rate_limit_exceeded"}}, apperr.ModelRateLimited, "retry", "retryAfter", 120, ""},
		{"429 insufficient quota is not retried", llmtest.Reply{Status: 429, Error: &llmtest.APIError{Message: "You exceeded your current quota", Code: "insufficient_quota"}}, apperr.ModelBadRequest, "providers", "", nil, ""},
		{"400 context too long", llmtest.Reply{Status: 400, Error: &llmtest.APIError{Message: "This model's maximum context length is 8192 tokens.", Code: "context_length_exceeded"}}, apperr.ModelContextTooLong, "", "model", "nope", ""},
		{"413 payload too large", llmtest.Reply{Status: 413, RawBody: "Request Entity Too Large"}, apperr.ModelContextTooLong, "", "", nil, ""},
		{"400 tools unsupported (Ollama)", llmtest.Reply{Status: 400, Error: &llmtest.APIError{Message: `registry.ollama.ai/library/gemma:2b does not support tools`, Type: "api_error"}}, apperr.ModelToolsUnsupp, "providers", "model", "nope", ""},
		{"400 function calling not supported", llmtest.Reply{Status: 400, Error: &llmtest.APIError{Message: "function calling is not supported for this model"}}, apperr.ModelToolsUnsupp, "providers", "", nil, ""},
		{"400 other", llmtest.Reply{Status: 400, Error: &llmtest.APIError{Message: "temperature must be <= 2"}}, apperr.ModelBadRequest, "", "message", "temperature must be <= 2", ""},
		{"500 JSON", llmtest.Scenarios()["500"](llmtest.Request{}), apperr.ModelServerError, "retry", "status", 500, ""},
		{"502 HTML", llmtest.Reply{Status: 502, RawBody: "<html>Bad Gateway</html>"}, apperr.ModelServerError, "retry", "status", 502, ""},
		{"stream cut mid-chunk", llmtest.Reply{Text: "partial answer that breaks", ChunkRunes: 4, CutAfter: 4}, apperr.ModelStreamMalformed, "retry", "", nil, "partial answ"},
		{"malformed data line", llmtest.Reply{Text: "abcdefghijkl", ChunkRunes: 3, MalformedAfter: 3}, apperr.ModelStreamMalformed, "retry", "", nil, "abcdef"},
		{"stream ends without finish", llmtest.Reply{Text: "no end", NoFinish: true}, apperr.ModelStreamMalformed, "retry", "", nil, "no end"},
		{"error inside the stream", llmtest.Reply{Text: "some text", StreamError: &llmtest.APIError{Message: "Rate limit exceeded mid-stream", Type: "rate_limit_error"}}, apperr.ModelRateLimited, "retry", "", nil, "some text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.Enqueue(tt.reply)
			c := newCollector()
			res, err := testClient(t, srv, noRetry).Stream(context.Background(), userReq("nope"), c.handler())
			assertCode(t, err, tt.want)
			ae := apperr.From(err)
			switch tt.action {
			case "":
				if ae.Action != nil {
					t.Errorf("unexpected action %+v", ae.Action)
				}
			case "retry":
				if ae.Action == nil || ae.Action.Kind != "retry" {
					t.Errorf("action = %+v, want retry", ae.Action)
				}
			default:
				if ae.Action == nil || ae.Action.Target != tt.action {
					t.Errorf("action = %+v, want open %s", ae.Action, tt.action)
				}
			}
			if tt.param != "" && ae.Params[tt.param] != tt.paramValue {
				t.Errorf("param %s = %v, want %v (params %v)", tt.param, ae.Params[tt.param], tt.paramValue, ae.Params)
			}
			if !strings.HasPrefix(res.Text, tt.partial) || !strings.HasPrefix(c.text.String(), tt.partial) {
				t.Errorf("kept text %q (handler %q), want prefix %q", res.Text, c.text.String(), tt.partial)
			}
		})
	}
}

func assertCode(t *testing.T, err error, want apperr.Code) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an apperr, want %s", err, err, want)
	}
	if ae.Code != want {
		t.Fatalf("code = %s (%s), want %s", ae.Code, ae.Message, want)
	}
}

func TestUnreachable(t *testing.T) {
	c := NewClient(NewHTTPClient(), "p", closedPortURL(t), "", DefaultRetry)
	_, err := c.Stream(context.Background(), userReq("m"), Handler{})
	assertCode(t, err, apperr.ModelUnreachable)
	if u, _ := apperr.From(err).Params["url"].(string); !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Fatalf("url param = %v", apperr.From(err).Params)
	}
	bad := NewClient(NewHTTPClient(), "p", "ftp://example.invalid/v1", "", DefaultRetry)
	_, err = bad.Stream(context.Background(), userReq("m"), Handler{})
	assertCode(t, err, apperr.ProviderInvalid)
}

func TestRateLimitRetry(t *testing.T) {
	limited := func(h map[string]string) llmtest.Reply {
		return llmtest.Reply{Status: 429, Header: h, Error: &llmtest.APIError{Message: "Rate limit reached", Code: "rate_limit_exceeded"}}
	}
	t.Run("honours retry-after-ms, then succeeds", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Enqueue(limited(map[string]string{"retry-after-ms": "40", "Retry-After": "1"}), limited(map[string]string{"retry-after-ms": "20"}), llmtest.Reply{Text: "finally"})
		c := newCollector()
		start := time.Now()
		res, err := testClient(t, srv, RetryPolicy{Max: 3, Base: time.Hour, Cap: time.Second}).Stream(context.Background(), userReq("m"), c.handler())
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "finally" || res.Retries != 2 || len(srv.Requests()) != 3 {
			t.Fatalf("text %q retries %d requests %d", res.Text, res.Retries, len(srv.Requests()))
		}
		if len(c.retries) != 2 || c.retries[0].Wait != 40*time.Millisecond || c.retries[1].Wait != 20*time.Millisecond || c.retries[0].Attempt != 1 {
			t.Fatalf("retry notices = %+v", c.retries)
		}
		if el := time.Since(start); el < 60*time.Millisecond {
			t.Fatalf("did not wait: %v", el)
		}
	})
	t.Run("Retry-After in seconds", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Enqueue(limited(map[string]string{"Retry-After": "1"}), llmtest.Reply{Text: "ok"})
		start := time.Now()
		_, err := testClient(t, srv, RetryPolicy{Max: 1, Base: time.Hour, Cap: 5 * time.Second}).Stream(context.Background(), userReq("m"), Handler{})
		if err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el < 900*time.Millisecond {
			t.Fatalf("waited only %v for Retry-After: 1", el)
		}
	})
	t.Run("gives up after Max retries and shows the wait", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Handle(func(llmtest.Request) llmtest.Reply { return limited(map[string]string{"retry-after-ms": "1500"}) })
		_, err := testClient(t, srv, RetryPolicy{Max: 2, Base: time.Hour, Cap: 2 * time.Second}).Stream(ctxWithFastClock(t), userReq("m"), Handler{})
		assertCode(t, err, apperr.ModelRateLimited)
		if got := apperr.From(err).Params["retryAfter"]; got != 2 {
			t.Fatalf("retryAfter = %v, want 2 (1.5 s rounded up)", got)
		}
		if n := len(srv.Requests()); n != 3 {
			t.Fatalf("requests = %d, want 1 + 2 retries", n)
		}
	})
	t.Run("backoff without a header", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Enqueue(limited(nil), llmtest.Reply{Text: "ok"})
		c := newCollector()
		_, err := testClient(t, srv, RetryPolicy{Max: 2, Base: 10 * time.Millisecond, Cap: time.Second}).Stream(context.Background(), userReq("m"), c.handler())
		if err != nil || len(c.retries) != 1 || c.retries[0].Wait != 10*time.Millisecond {
			t.Fatalf("err %v, retries %+v", err, c.retries)
		}
	})
	t.Run("cancel while waiting", func(t *testing.T) {
		srv := llmtest.Start(t)
		srv.Handle(func(llmtest.Request) llmtest.Reply { return limited(map[string]string{"Retry-After": "10"}) })
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		c := newCollector()
		h := c.handler()
		h.Retry = func(RetryInfo) { cancel() }
		go func() {
			_, err := testClient(t, srv, RetryPolicy{Max: 3, Base: time.Second, Cap: time.Minute}).Stream(ctx, userReq("m"), h)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled inside", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("cancel did not end the wait")
		}
	})
}

// ctxWithFastClock is a plain context; the named helper documents that waits under the
// cap (1.5 s × 2) are real in this test.
func ctxWithFastClock(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		h    map[string]string
		want time.Duration
		ok   bool
	}{
		{map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{map[string]string{"retry-after-ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0, true},
		{map[string]string{"Retry-After": "soon"}, 0, false},
		{map[string]string{}, 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.h {
			h.Set(k, v)
		}
		got, ok := parseRetryAfter(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%v: got %v %v, want %v %v", tt.h, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCancelKeepsPartial(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Reply{Text: strings.Repeat("slow ", 200), ChunkRunes: 5, Delay: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	c := newCollector()
	done := make(chan struct{})
	var res Result
	var err error
	go func() {
		defer close(done)
		res, err = testClient(t, srv, DefaultRetry).Stream(ctx, userReq("m"), c.handler())
	}()
	<-c.gotText
	start := time.Now()
	cancel()
	<-done
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("cancel took %v", el)
	}
	assertCode(t, err, apperr.Canceled)
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(res.Text, "slow") {
		t.Fatalf("err %v, text %q", err, res.Text)
	}
}

func TestRequestShape(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	zero := 0.0
	req := Request{Model: "m", Temperature: &zero,
		Messages: []Message{
			{Role: RoleSystem, Content: "be brief"},
			{Role: RoleUser, Content: "hi"},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "web_search", Arguments: `{"q":1`}}},
			{Role: RoleTool, ToolCallID: "c1", Content: "Error: arguments are not valid JSON"},
		},
		Tools: []ToolDef{{Name: "web_search", Description: "search", Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`)}, {Name: "noargs"}},
	}
	if _, err := testClient(t, srv, DefaultRetry).Stream(context.Background(), req, Handler{}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if body.Temperature == nil || *body.Temperature != 0 && *body.Temperature > 1e-30 {
		t.Fatalf("temperature 0 must be sent (as ~0), got %v", body.Temperature)
	}
	if len(body.Messages) != 4 || body.Messages[2].ToolCalls[0].Function.Arguments != `{"q":1` || body.Messages[3].ToolCallID != "c1" {
		t.Fatalf("messages = %+v", body.Messages)
	}
	if len(body.Tools) != 2 || string(body.Tools[1].Function.Parameters) != `{"type":"object","properties":{}}` {
		t.Fatalf("tools = %s", srv.Requests()[0].Raw)
	}
}

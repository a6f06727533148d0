package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEverythingOverHTTP covers server-everything's two HTTP modes: Streamable HTTP at
// /mcp, and the SSE server reached both explicitly and by falling back after the
// Streamable HTTP initialize is refused.
func TestEverythingOverHTTP(t *testing.T) {
	streamable := mcptest.StartEverythingHTTP(t, "streamableHttp")
	sse := mcptest.StartEverythingHTTP(t, "sse")
	cases := []struct {
		name      string
		transport Transport
		url       string
		want      Transport
		fellBack  bool
	}{
		{"streamable", TransportHTTP, streamable.URL, TransportHTTP, false},
		{"sse fallback", TransportHTTP, sse.URL, TransportSSE, true},
		{"sse", TransportSSE, sse.URL, TransportSSE, false},
	}
	h := newHarness(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := h.save(Server{Name: tc.name, Transport: tc.transport, URL: tc.url, Enabled: true})
			if _, err := h.m.RefreshTools(ctxT(t, 30*time.Second), v.ID); err != nil {
				t.Fatal(err)
			}
			st := h.m.servers[v.ID].status()
			if st.Transport != tc.want {
				t.Fatalf("transport %s, want %s", st.Transport, tc.want)
			}
			if tc.fellBack != (st.FallbackStatus != 0) || (tc.fellBack && !fallbackStatus(st.FallbackStatus)) {
				t.Fatalf("fallback status %d", st.FallbackStatus)
			}
			res, err := h.call(v.ID, "echo", `{"message":"over `+tc.name+`"}`, nil)
			if err != nil || res.Content != "Echo: over "+tc.name {
				t.Fatalf("%+v %v", res, err)
			}
			var mu sync.Mutex
			n := 0
			res, err = h.call(v.ID, "trigger-long-running-operation", `{"duration":0.3,"steps":3}`, func(tools.Progress) {
				mu.Lock()
				n++
				mu.Unlock()
			})
			mu.Lock()
			defer mu.Unlock()
			if err != nil || n < 2 {
				t.Fatalf("progress %d, %v", n, err)
			}
		})
	}
}

// goServer is a small go-sdk server with one tool that reports the request headers.
func goServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "go-test", Version: "1"}, nil)
	type in struct {
		A, B int
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "adds", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			text := "sum " + strconv.Itoa(a.A+a.B)
			if req.Extra != nil && req.Extra.Header != nil {
				text += " auth=" + req.Extra.Header.Get("Authorization") + " x=" + req.Extra.Header.Get("X-Team")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return s
}

// TestHeadersSecretsAndAuth: configured headers reach the server on every request, the
// secret one from the secret store only; a 401 says authorization is needed.
func TestHeadersSecretsAndAuth(t *testing.T) {
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return goServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cr3t-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	h := newHarness(t)
	v := h.save(Server{Name: "remote", URL: srv.URL, Enabled: true, Headers: []Var{
		{Name: "Authorization", Value: "Bearer s3cr3t-token", Secret: true},
		{Name: "X-Team", Value: "blue"},
	}})
	if v.Transport != TransportHTTP || v.Headers[0].Value != "" || !v.Headers[0].Set || v.Headers[0].Last4 != "oken" {
		t.Fatalf("view %+v", v.Headers)
	}
	var raw string
	_ = h.cfg.DB.QueryRow("SELECT headers || secret_headers FROM mcp_servers WHERE id = ?", v.ID).Scan(&raw)
	if strings.Contains(raw, "s3cr3t") {
		t.Fatalf("secret stored in SQLite: %s", raw)
	}
	res, err := h.call(v.ID, "add", `{"A":2,"B":3}`, nil)
	if err != nil || res.Content != "sum 5 auth=Bearer s3cr3t-token x=blue" {
		t.Fatalf("%+v %v", res, err)
	}

	// Editing without retyping the secret keeps it; a wrong one gets 401.
	v.Headers[1].Value = "red"
	v = h.save(v.Server)
	if res, err := h.call(v.ID, "add", `{"A":1,"B":1}`, nil); err != nil || !strings.HasSuffix(res.Content, "x=red") {
		t.Fatalf("%+v %v", res, err)
	}
	v.Headers[0].Value = "Bearer wrong"
	v = h.save(v.Server)
	_, err = h.m.RefreshTools(ctxT(t, 10*time.Second), v.ID)
	ae := wantCode(t, err, apperr.MCPAuthRejected)
	if ae.Params["status"] != http.StatusUnauthorized {
		t.Fatalf("params %v", ae.Params)
	}
}

// TestBuiltinServer: an in-process server over the in-memory transports.
func TestBuiltinServer(t *testing.T) {
	h := newHarness(t)
	if err := h.m.RegisterBuiltin(context.Background(), Builtin{ID: "calc", Name: "Calculator", New: goServer}); err != nil {
		t.Fatal(err)
	}
	h.m.Start()
	v := h.wait("calc", 10*time.Second, "ready", ready)
	if v.Transport != TransportBuiltin || len(v.Tools) != 1 || v.Tools[0].NeedsApproval {
		t.Fatalf("view %+v", v)
	}
	res, err := h.call("calc", "add", `{"A":40,"B":2}`, nil)
	if err != nil || !strings.HasPrefix(res.Content, "sum 42") {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := h.m.Save(context.Background(), v.Server); !apperr.Is(err, apperr.MCPServerInvalid) {
		t.Fatalf("editing a built-in: %v", err)
	}
	if err := h.m.Delete(context.Background(), "calc"); !apperr.Is(err, apperr.MCPServerInvalid) {
		t.Fatalf("deleting a built-in: %v", err)
	}
}

// TestUnreachableHTTP: nothing listening is "unreachable", with the URL.
func TestUnreachableHTTP(t *testing.T) {
	h := newHarness(t)
	port := mcptest.FreePort(t)
	v := h.save(Server{Name: "nobody", URL: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp", Enabled: true})
	_, err := h.m.RefreshTools(ctxT(t, 10*time.Second), v.ID)
	ae := wantCode(t, err, apperr.MCPUnreachable)
	if !strings.Contains(ae.Params["url"].(string), strconv.Itoa(port)) {
		t.Fatalf("params %v", ae.Params)
	}
}

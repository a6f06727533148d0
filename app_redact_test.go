package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/server"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/tools"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// leakKey is the provider key the fake provider echoes; no 8 characters of it in a row may
// reach the database, a window, a log line or an event.
const leakKey = "sk-live-LEAKME0123456789abcdefXYZ"

// TestKeysEchoedByAProviderOrAToolGoNowhere: a provider that answers 401 with the key in
// its message (whole, cut, masked), a tool whose error echoes it and an MCP server whose
// tool error echoes the token Cairn sends it: the stored message,
// its parts, GetSession and the provider calls' answers through `cairn serve`, serve's log
// and every published event hold no part of the key.
func TestKeysEchoedByAProviderOrAToolGoNowhere(t *testing.T) {
	ctx := context.Background()
	var logs syncBuffer
	s, err := service.Open(ctx, service.Options{DataDir: t.TempDir(), SecretsBackend: "file",
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sub := s.Bus.Subscribe(4096)
	var evs []events.Event
	var evMu sync.Mutex
	go func() {
		for ev := range sub.C {
			evMu.Lock()
			evs = append(evs, ev)
			evMu.Unlock()
		}
	}()
	if err := s.Tools.Register(tools.Entry{Name: "leaky_lookup", Namespace: "test", Description: "Fails, echoing the key.",
		ReadOnly: true, ConcurrencySafe: true,
		Execute: func(context.Context, json.RawMessage, func(tools.Progress)) (tools.Result, error) {
			return tools.Result{}, errors.New("upstream said: invalid token " + leakKey[:20] + "…")
		}}); err != nil {
		t.Fatal(err)
	}
	fake := llmtest.Start(t)
	api := startRedactServe(t, s, &logs)

	var p llm.Provider
	api.call(t, "SaveProvider", []any{llm.ProviderInput{Name: "Fake", BaseURL: fake.URL, APIKey: leakKey,
		Models: []llm.Model{{ID: "fake-model", SupportsTools: true}}}}, &p)
	var sess chat.Session
	api.call(t, "CreateSession", []any{chat.SessionInput{ProviderID: p.ID, Toolsets: []string{}}}, &sess)

	echoes := []string{
		"Incorrect API key provided: " + leakKey + ".",
		"Incorrect API key provided: " + leakKey[:3] + strings.Repeat("*", 20) + leakKey[len(leakKey)-4:] + ".",
		"key " + leakKey[:12] + "… is not valid",
	}
	for _, msg := range echoes {
		fake.Enqueue(llmtest.Reply{Status: http.StatusUnauthorized, Error: &llmtest.APIError{Message: msg, Type: "invalid_request_error", Code: "invalid_api_key"}})
		api.send(t, s, sess.ID)
	}
	// A tool error that echoes the key, then the answer.
	fake.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "leaky_lookup", Arguments: `{}`}}}, llmtest.Reply{Text: "done"})
	api.send(t, s, sess.ID)
	// An MCP server whose tool error echoes the token Cairn sends it (a secret header).
	mcpSrv := httptest.NewServer(sdkmcp.NewStreamableHTTPHandler(func(*http.Request) *sdkmcp.Server { return leakyMCP() }, nil))
	t.Cleanup(mcpSrv.Close) // after s.Close has ended the client's open stream
	view, err := s.MCP.Save(ctx, mcp.Server{Name: "leaky", Transport: mcp.TransportHTTP, URL: mcpSrv.URL, Enabled: true,
		Headers: []mcp.Var{{Name: "Authorization", Value: "Bearer " + leakToken, Secret: true}}})
	if err != nil {
		t.Fatal(err)
	}
	mcpTools, err := s.MCP.RefreshTools(ctx, view.ID)
	if err != nil || len(mcpTools) != 1 {
		t.Fatalf("MCP tools: %+v %v", mcpTools, err)
	}
	fake.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: mcpTools[0].WireName, Arguments: `{}`}}}, llmtest.Reply{Text: "done"})
	api.send(t, s, sess.ID)

	// A provider error on a call that serve logs: the model list of a provider that echoes
	// the key it was sent.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		msg := "Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "code": "invalid_api_key"}})
	}))
	defer echo.Close()
	var p2 llm.Provider
	api.call(t, "SaveProvider", []any{llm.ProviderInput{Name: "Echo", BaseURL: echo.URL + "/v1", APIKey: leakKey}}, &p2)
	status, body := api.post(t, "FetchModels", []any{p2.ID})
	if status != http.StatusBadGateway || !strings.Contains(body, "model_auth_failed") {
		t.Fatalf("FetchModels with a refused key: %d %s", status, body)
	}
	assertNoKey(t, "FetchModels' answer", body)
	status, body = api.post(t, "TestProvider", []any{p2.ID, "m"})
	if status != http.StatusOK || !strings.Contains(body, "model_auth_failed") {
		t.Fatalf("TestProvider with a refused key: %d %s", status, body)
	}
	assertNoKey(t, "TestProvider's answer", body)

	_, snap := api.post(t, "GetSession", []any{sess.ID})
	if !strings.Contains(snap, "model_auth_failed") || !strings.Contains(snap, "tool-error") || !strings.Contains(snap, "the token [redacted] is not valid") {
		t.Fatalf("the test did not produce its errors: %s", snap)
	}
	assertNoKey(t, "GetSession", snap)
	assertNoKey(t, "the database", dumpDB(t, s.DB.DB))
	assertNoKey(t, "the log", logs.String())
	if !strings.Contains(logs.String(), "serve: request failed") {
		t.Fatalf("serve logged nothing about the refused key:\n%s", logs.String())
	}
	sub.Close()
	evMu.Lock()
	defer evMu.Unlock()
	var all strings.Builder
	for _, ev := range evs {
		all.Write(ev.Data)
		all.WriteByte('\n')
	}
	if !strings.Contains(all.String(), "model_auth_failed") {
		t.Fatal("no error event was published")
	}
	assertNoKey(t, "the events", all.String())
}

// leakToken is an MCP server's token, sent as a secret header, which its tool echoes.
const leakToken = "mcp-tok-ZZLEAK9876543210qwerty"

func leakyMCP() *sdkmcp.Server {
	srv := sdkmcp.NewServer(&sdkmcp.Implementation{Name: "leaky", Version: "1"}, nil)
	sdkmcp.AddTool(srv, &sdkmcp.Tool{Name: "lookup", Description: "looks up", Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdkmcp.CallToolRequest, _ struct{}) (*sdkmcp.CallToolResult, any, error) {
			got := ""
			if req.Extra != nil && req.Extra.Header != nil {
				got = strings.TrimPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")
			}
			return &sdkmcp.CallToolResult{IsError: true, Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: "the token " + got + " is not valid"}}}, nil, nil
		})
	return srv
}

func assertNoKey(t *testing.T, where, text string) {
	t.Helper()
	for _, secret := range []string{leakKey, leakToken} {
		for i := 0; i+8 <= len(secret); i++ {
			if strings.Contains(text, secret[i:i+8]) {
				t.Fatalf("%s holds %q of a secret:\n%s", where, secret[i:i+8], text)
			}
		}
	}
}

// dumpDB is every text cell of every table.
func dumpDB(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	var b strings.Builder
	for _, tbl := range tables {
		r, err := db.Query(fmt.Sprintf("SELECT * FROM %q", tbl))
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := r.Columns()
		for r.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			_ = r.Scan(ptrs...)
			fmt.Fprintln(&b, tbl, vals)
			for _, v := range vals {
				if by, ok := v.([]byte); ok {
					b.Write(by)
				}
			}
		}
		r.Close()
	}
	return b.String()
}

type redactAPI struct {
	url, token string
}

// startRedactServe serves the real facade the way `cairn serve` does: its log through the
// services' redactor.
func startRedactServe(t *testing.T, s *service.Services, logs io.Writer) *redactAPI {
	t.Helper()
	const token = "redact-test-token-0123456789"
	srv, err := server.New(server.Config{Token: token, Bound: NewApp(context.Background(), s, false).perCall(), Bus: s.Bus, Redact: s.Redact,
		Logger: slog.New(s.Redact.Handler(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return &redactAPI{url: ts.URL, token: token}
}

func (a *redactAPI) post(t *testing.T, method string, args []any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(args)
	req, _ := http.NewRequest(http.MethodPost, a.url+"/api/"+method, strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func (a *redactAPI) call(t *testing.T, method string, args []any, out any) {
	t.Helper()
	status, body := a.post(t, method, args)
	if status != http.StatusOK {
		t.Fatalf("%s: %d %s", method, status, body)
	}
	var r struct{ Result json.RawMessage }
	if err := json.Unmarshal([]byte(body), &r); err != nil || json.Unmarshal(r.Result, out) != nil {
		t.Fatalf("%s: %s", method, body)
	}
}

func (a *redactAPI) send(t *testing.T, s *service.Services, sessionID string) {
	t.Helper()
	var res chat.SendResult
	a.call(t, "SendMessage", []any{sessionID, "hello", []any{}}, &res)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.Chat.Wait(ctx, sessionID); err != nil {
		t.Fatalf("the answer did not end: %v", err)
	}
}

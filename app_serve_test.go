package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/server"
	"github.com/cairn-app/cairn/backend/service"
)

// syncBuffer is a log sink the server's goroutines may write to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestServeRefusesBadSettingsAsTheRequestsFault: an invalid setting value sent through
// `cairn serve` to the real facade is a 400 carrying the setting's i18n error, logged at
// info; nothing is logged as a server error.
func TestServeRefusesBadSettingsAsTheRequestsFault(t *testing.T) {
	ctx := context.Background()
	s, err := service.Open(ctx, service.Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var logs syncBuffer
	const token = "serve-test-token-0123456789"
	srv, err := server.New(server.Config{Token: token, Bound: NewApp(ctx, s, false), Bus: s.Bus,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer func() { _ = srv.Shutdown(ctx) }()

	tests := []struct {
		name, body, code string
	}{
		{"out of range", `["chat.maxToolRounds", 0]`, "setting_out_of_range"},
		{"not a choice", `["general.theme", "purple"]`, "setting_not_a_choice"},
		{"not an integer", `["chat.maxToolRounds", "ten"]`, "setting_not_integer"},
		{"not a boolean", `["chat.sendOnEnter", "yes please"]`, "setting_not_boolean"},
		{"unknown key", `["chat.noSuchSetting", 1]`, "setting_unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/SetSetting", strings.NewReader(tt.body))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got struct {
				Error struct {
					Code    string         `json:"code"`
					I18nKey string         `json:"i18nKey"`
					Params  map[string]any `json:"params"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusBadRequest || got.Error.Code != tt.code || got.Error.I18nKey != "errors."+tt.code {
				t.Fatalf("status %d, error %+v; want 400 %s", resp.StatusCode, got.Error, tt.code)
			}
			if got.Error.Params["key"] == nil {
				t.Fatalf("the error does not name the setting: %+v", got.Error)
			}
		})
	}
	out := logs.String()
	if strings.Contains(out, "level=ERROR") || strings.Contains(out, "level=WARN") {
		t.Fatalf("a refused setting was logged as a failure:\n%s", out)
	}
	if n := strings.Count(out, "level=INFO msg=\"serve: request failed\""); n != len(tests) {
		t.Fatalf("want %d info lines for the refusals, got %d:\n%s", len(tests), n, out)
	}
}

// TestServeCancelledRequestEndsItsWait: a call through `cairn serve` that waits (a
// provider test against a provider that never answers) ends when the client gives up on
// the request: the facade's call returns and its request to the provider is dropped,
// instead of waiting on the app's context until the provider's timeout.
func TestServeCancelledRequestEndsItsWait(t *testing.T) {
	ctx := context.Background()
	s, err := service.Open(ctx, service.Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	arrived, dropped, quit := make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{})
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read to the end: Go notices a dropped connection from then on
		notifyOnce(arrived)
		select { // never answers
		case <-r.Context().Done():
			notifyOnce(dropped)
		case <-quit: // the test is over
		}
	}))
	defer provider.Close()
	app := NewApp(ctx, s, false)
	p, err := app.SaveProvider(llm.ProviderInput{Name: "Silent", BaseURL: provider.URL + "/v1", APIKey: "sk-silent-0123456789",
		Models: []llm.Model{{ID: "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	const token = "cancel-test-token-0123456789"
	srv, err := server.New(server.Config{Token: token, Bound: app.perCall(), Bus: s.Bus})
	if err != nil {
		t.Fatal(err)
	}
	returned := make(chan struct{}, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.Handler().ServeHTTP(w, r)
		if strings.HasSuffix(r.URL.Path, "/TestProvider") {
			notifyOnce(returned)
		}
	}))
	defer ts.Close()
	defer func() { _ = srv.Shutdown(ctx) }()
	defer close(quit) // first: the servers' Close waits for their handlers

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodPost, ts.URL+"/api/TestProvider", strings.NewReader(`["`+p.ID+`", "m"]`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	go func() {
		if resp, err := ts.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	wait := func(ch chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s", what)
		}
	}
	wait(arrived, "the provider test never reached the provider")
	cancel() // the tab is closed
	wait(dropped, "the provider still waits for an answer after the request was cancelled")
	wait(returned, "the facade call did not return after the request was cancelled")
}

// notifyOnce notes an event once without ever blocking the handler that saw it.
func notifyOnce(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

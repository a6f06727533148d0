package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

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

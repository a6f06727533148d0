package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

// TestStartupFailure: the failure window gets the localizable error without the action it
// cannot follow (no settings without a backend), logs once that it is on screen, and quits.
func TestStartupFailure(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode apperr.Code
		params   map[string]any
	}{
		{
			name:     "apperr with an action, wrapped",
			err:      fmt.Errorf("open: %w", apperr.New(apperr.DataDirFailed, "create data dir").WithParam("path", "/x").WithAction("open-settings", "general")),
			wantCode: apperr.DataDirFailed,
			params:   map[string]any{"path": "/x"},
		},
		{name: "plain error", err: fmt.Errorf("boom"), wantCode: apperr.From(fmt.Errorf("boom")).Code},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			quits := 0
			f := NewStartupFailure(tc.err, "/data", "zh-CN", slog.New(slog.NewTextHandler(&logs, nil)), func() { quits++ })
			d := f.Details()
			if d.Error.Code != tc.wantCode || d.Error.Action != nil || d.DataDir != "/data" || d.Version == "" || d.Language != "zh-CN" {
				t.Fatalf("Details = %+v (error %+v)", d, d.Error)
			}
			for k, v := range tc.params {
				if d.Error.Params[k] != v {
					t.Errorf("param %s = %v, want %v", k, d.Error.Params[k], v)
				}
			}
			// The window reads it as JSON: the apperr shape the frontend already knows.
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			var back struct {
				Error struct {
					Code    string `json:"code"`
					I18nKey string `json:"i18nKey"`
				} `json:"error"`
				DataDir string `json:"dataDir"`
			}
			if err := json.Unmarshal(b, &back); err != nil || back.Error.Code != string(tc.wantCode) || back.Error.I18nKey == "" || back.DataDir != "/data" {
				t.Fatalf("JSON %s", b)
			}
			f.Shown("zh-CN")
			f.Shown("en")
			if n := strings.Count(logs.String(), "start-up failure shown"); n != 1 || !strings.Contains(logs.String(), "language=zh-CN") {
				t.Errorf("logged %d times, want once: %s", n, logs.String())
			}
			f.Quit()
			if quits != 1 {
				t.Errorf("quit called %d times", quits)
			}
		})
	}
	// The wrapped error the caller holds keeps its action (only the window's copy drops it).
	orig := apperr.New(apperr.DataDirFailed, "x").WithAction("open-settings", "general")
	NewStartupFailure(orig, "", "en", slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), nil).Quit() // nil quit: no-op
	if orig.Action == nil {
		t.Error("NewStartupFailure changed the caller's error")
	}
}

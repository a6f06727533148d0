package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// TestSaveRefusesBadPortsAndKeys: a port outside 1–65535 and a key with a control or
// invisible character are refused with their own codes, and nothing is stored.
func TestSaveRefusesBadPortsAndKeys(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, url, key string
		want           apperr.Code
		params         map[string]any
	}{
		{"port too high", "http://127.0.0.1:70000/v1", "", apperr.ProviderPortInvalid, map[string]any{"port": "70000"}},
		{"port zero", "http://127.0.0.1:0/v1", "", apperr.ProviderPortInvalid, map[string]any{"port": "0"}},
		{"port far too long", "http://h:" + strings.Repeat("9", 100) + "/v1", "", apperr.ProviderPortInvalid, nil},
		{"lowest port", "http://127.0.0.1:1/v1", "", "", nil},
		{"highest port", "http://127.0.0.1:65535/v1", "", "", nil},
		{"line break inside the key", "http://127.0.0.1:8080/v1", "sk-abc\ndef", apperr.ProviderKeyInvalid, map[string]any{"char": "U+000A", "position": 7}},
		{"escape in the key", "http://127.0.0.1:8080/v1", "sk-\x1b[2Kabc", apperr.ProviderKeyInvalid, map[string]any{"char": "U+001B", "position": 4}},
		{"zero-width space in the key", "http://127.0.0.1:8080/v1", "sk-\u200babc", apperr.ProviderKeyInvalid, map[string]any{"char": "U+200B", "position": 4}},
		{"trailing newline trimmed", "http://127.0.0.1:8080/v1", "  sk-fine-key-1234\n", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			_, err := e.svc.Save(ctx, ProviderInput{Name: "p", BaseURL: tt.url, APIKey: tt.key, Models: []Model{{ID: "m"}}})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			ae := apperr.From(err)
			if ae == nil || ae.Code != tt.want {
				t.Fatalf("err = %v, want %s", err, tt.want)
			}
			for k, v := range tt.params {
				if ae.Params[k] != v {
					t.Fatalf("params %v, want %s = %v", ae.Params, k, v)
				}
			}
			if b, _ := json.Marshal(ae); len(b) > 600 {
				t.Fatalf("the error echoes the input: %s", b)
			}
			if snap, _ := e.svc.List(ctx); len(snap.Providers) != 0 {
				t.Fatalf("stored anyway: %+v", snap.Providers)
			}
			if names, _ := e.sec.Snapshot(ctx); len(names.Secrets) > 0 {
				for _, st := range names.Secrets {
					if st.Set {
						t.Fatalf("key stored anyway: %+v", st)
					}
				}
			}
		})
	}
}

// TestStoredBadKeyIsNotUnreachable: a key saved before keys were checked, with a line
// break in it, is reported as that key — by chat, by the provider test and by the model
// list — never as a host that cannot be reached.
func TestStoredBadKeyIsNotUnreachable(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	srv := llmtest.Start(t)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "OK"} })
	p, err := e.svc.Save(ctx, ProviderInput{Name: "local", BaseURL: srv.URL, APIKey: "sk-good", Models: []Model{{ID: "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.sec.Set(ctx, SecretName(p.ID), "sk-abc\r\ndef"); err != nil {
		t.Fatal(err)
	}
	e.svc.forgetKey(p.ID)
	if _, err := e.svc.Resolve(ctx, p.ID, ""); !apperr.Is(err, apperr.ProviderKeyStoredBad) {
		t.Fatalf("resolve: %v", err)
	}
	res, err := e.svc.Test(ctx, p.ID, "")
	if err != nil || res.Error == nil || res.Error.Code != apperr.ProviderKeyStoredBad || res.Error.Params["name"] != "local" {
		t.Fatalf("test: %+v %v", res, err)
	}
	if _, err = e.svc.FetchModels(ctx, p.ID); !apperr.Is(err, apperr.ProviderKeyStoredBad) {
		t.Fatalf("models: %v", err)
	}
	if strings.Contains(apperr.From(err).Message, "sk-abc") {
		t.Fatalf("the key is in the message: %s", apperr.From(err).Message)
	}
}

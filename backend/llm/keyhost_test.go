package llm

import (
	"context"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

// TestAStoredKeyDoesNotFollowANewHost: moving a provider's base URL to another scheme,
// host or port needs the key again, or the explicit choice to keep it; the refused save
// changes nothing. Paths, case and spelled-out default ports are the same host.
func TestAStoredKeyDoesNotFollowANewHost(t *testing.T) {
	ctx := context.Background()
	const key = "sk-host-bound-key-0001"
	tests := []struct {
		name    string
		baseURL string
		in      ProviderInput
		refused bool
		keyLeft string // the stored key afterwards ("" = none)
	}{
		{"another path on the same host", "https://api.example.com/v2", ProviderInput{}, false, key},
		{"the default port spelled out", "https://API.Example.com:443/v1", ProviderInput{}, false, key},
		{"another host", "https://evil.example.net/v1", ProviderInput{}, true, key},
		{"another port", "https://api.example.com:8443/v1", ProviderInput{}, true, key},
		{"another scheme", "http://api.example.com/v1", ProviderInput{}, true, key},
		{"another host, keep the key", "https://proxy.example.net/v1", ProviderInput{KeepKey: true}, false, key},
		{"another host, a new key", "https://other.example.net/v1", ProviderInput{APIKey: "sk-new-key-for-other-02"}, false, "sk-new-key-for-other-02"},
		{"another host, key removed", "https://other.example.net/v1", ProviderInput{ClearKey: true}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p, err := e.svc.Save(ctx, ProviderInput{Name: "Hosted", BaseURL: "https://api.example.com/v1", APIKey: key, DefaultModel: "m1"})
			if err != nil {
				t.Fatal(err)
			}
			in := tt.in
			in.ID, in.Name, in.BaseURL = p.ID, p.Name, tt.baseURL
			got, err := e.svc.Save(ctx, in)
			if tt.refused {
				if !apperr.Is(err, apperr.ProviderKeyHostMoved) {
					t.Fatalf("save = %+v, %v; want %s", got, err, apperr.ProviderKeyHostMoved)
				}
				ae := apperr.From(err)
				if ae.Params["from"] != "https://api.example.com" || ae.Params["to"] == "" || ae.Params["name"] != "Hosted" {
					t.Fatalf("params %+v", ae.Params)
				}
				if now, _ := e.svc.Get(ctx, p.ID); now.BaseURL != "https://api.example.com/v1" {
					t.Fatalf("a refused save moved the provider to %s", now.BaseURL)
				}
			} else if err != nil {
				t.Fatalf("save: %v", err)
			}
			v, ok, err := e.sec.Get(SecretName(p.ID))
			if err != nil || v != tt.keyLeft || ok != (tt.keyLeft != "") {
				t.Fatalf("stored key = %q %v %v, want %q", v, ok, err, tt.keyLeft)
			}
		})
	}
}

// TestAProviderWithoutAKeyMovesFreely: nothing is sent along, so nothing is asked.
func TestAProviderWithoutAKeyMovesFreely(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	p, err := e.svc.Save(ctx, ProviderInput{Name: "Local", BaseURL: "http://127.0.0.1:11434/v1", DefaultModel: "llama3"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Save(ctx, ProviderInput{ID: p.ID, Name: p.Name, BaseURL: "http://127.0.0.1:1234/v1"}); err != nil {
		t.Fatal(err)
	}
}

func TestOrigin(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://API.example.com/v1", "https://api.example.com"},
		{"https://api.example.com:443/v1", "https://api.example.com"},
		{"http://api.example.com:80", "http://api.example.com"},
		{"http://api.example.com:8080/v1", "http://api.example.com:8080"},
		{"http://[::1]:1234/v1", "http://[::1]:1234"},
		{"http://[::1]/v1", "http://[::1]"},
	}
	for _, tt := range tests {
		if got := origin(tt.in); got != tt.want {
			t.Errorf("origin(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// TestProviderEditAsksBeforeTheKeyGoesToANewHost: `provider edit --base-url` to another
// host is refused (exit 2, with how to go on) and changes nothing; --keep-key or a new key
// from stdin makes the move, and the kept key then goes to the new host.
func TestProviderEditAsksBeforeTheKeyGoesToANewHost(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	const key = "sk-cli-keyhost-0123456789"
	home := llmtest.Start(t, llmtest.WithAPIKey(key))
	moved := llmtest.Start(t, llmtest.WithAPIKey(key))
	moved.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "OK"} })
	if r := run(t, dir, key+"\n", "provider", "add", "Fake", "--base-url", home.URL, "--model", "m", "--api-key-stdin"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	r := run(t, dir, "", "provider", "edit", "Fake", "--base-url", moved.URL)
	if r.code != 2 || !strings.Contains(r.stderr, "--keep-key") {
		t.Fatalf("edit to another host without the key: %+v", r)
	}
	if r := run(t, dir, "", "provider", "list"); !strings.Contains(r.stdout, home.URL) {
		t.Fatalf("a refused edit moved the provider: %s", r.stdout)
	}
	if r := run(t, dir, "", "provider", "edit", "Fake", "--base-url", moved.URL, "--keep-key"); r.code != 0 || !strings.Contains(r.stdout, moved.URL) {
		t.Fatalf("edit --keep-key: %+v", r)
	}
	if r := run(t, dir, "", "provider", "test", "Fake"); r.code != 0 {
		t.Fatalf("the kept key did not reach the new host: %+v", r)
	}
	const other = "sk-cli-keyhost-other-9876"
	if r := run(t, dir, other+"\n", "provider", "edit", "Fake", "--base-url", home.URL, "--api-key-stdin"); r.code != 0 || strings.Contains(r.stdout+r.stderr, other) {
		t.Fatalf("edit with a new key: %+v", r)
	}
}

// TestProviderCommandsRedactAnEchoedKey: a provider that echoes the key it was sent in
// its 401 does not get it printed by `provider test` or `provider models`.
func TestProviderCommandsRedactAnEchoedKey(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	const key = "sk-cli-echoed-0123456789xyz"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","code":"invalid_api_key"}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer echo.Close()
	if r := run(t, dir, key+"\n", "provider", "add", "Echo", "--base-url", echo.URL+"/v1", "--model", "m", "--api-key-stdin"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	for _, args := range [][]string{{"provider", "test", "Echo"}, {"provider", "test", "Echo", "--json"}, {"provider", "models", "Echo"}} {
		r := run(t, dir, "", args...)
		if out := r.stdout + r.stderr; strings.Contains(out, key[:8]) || !strings.Contains(out, "[redacted]") {
			t.Fatalf("%v: %+v", args, r)
		}
	}
}

package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSearchCommand: `cairn search` reads the endpoint from the settings and the key from
// the secret store, prints JSON or escaped text, and a missing key is an error pointing to
// where keys are set (never an empty answer). Every request goes to a loopback server.
func TestSearchCommand(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	dir := t.TempDir()
	brave := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/res/v1/web/search" || r.Header.Get("X-Subscription-Token") != "brave-key-123456" || r.URL.Query().Get("q") != "cairn stones" {
			t.Errorf("request %s %v", r.URL, r.Header)
		}
		io.WriteString(w, `{"type":"search","web":{"results":[{"title":"Cairn \u001b[31mred","url":"https://example.org/cairn","description":"A pile of stones"}]}}`)
	}))
	defer brave.Close()
	for _, args := range [][]string{
		{"settings", "set", "websearch.endpoint.brave", brave.URL},
		{"settings", "set", "websearch.provider", "brave"},
	} {
		if r := run(t, dir, "", args...); r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	if r := run(t, dir, "brave-key-123456\n", "secrets", "set", "websearch.brave"); r.code != 0 {
		t.Fatalf("secrets set: %+v", r)
	}
	r := run(t, dir, "", "search", "--json", "cairn", "stones")
	var ans struct {
		Provider string `json:"provider"`
		Results  []struct {
			URL string `json:"url"`
		} `json:"results"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &ans) != nil || ans.Provider != "brave" || len(ans.Results) != 1 {
		t.Fatalf("search --json: %+v", r)
	}
	r = run(t, dir, "", "search", "cairn", "stones")
	if r.code != 0 || strings.Contains(r.stdout, "\x1b") || !strings.Contains(r.stdout, "https://example.org/cairn") {
		t.Fatalf("search: %+v", r)
	}
	r = run(t, dir, "", "search", "--provider", "tavily", "cairn")
	if r.code != 1 || !strings.Contains(r.stderr, "Tavily") || !strings.Contains(r.stderr, "cairn secrets") {
		t.Fatalf("no Tavily key: %+v", r)
	}
	if r := run(t, dir, "", "search"); r.code != 2 {
		t.Fatalf("no query: %+v", r)
	}
}

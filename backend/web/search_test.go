package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/websearch"
)

type settingsMap map[string]string

func (m settingsMap) String(_ context.Context, k string) string { return m[k] }
func (m settingsMap) Duration(context.Context, string) time.Duration {
	return 10 * time.Second
}
func (m settingsMap) Get(_ context.Context, k string) (any, error) { return m[k], nil }

type secretsMap map[string]string

func (m secretsMap) Get(n string) (string, bool, error) { v, ok := m[n]; return v, ok, nil }

// TestParseLinkDispatch is the seed's table: the chosen provider reads the page when it
// can (Tavily through /extract, its failure reported as its own), Cairn's fetcher
// otherwise (handled false).
func TestParseLinkDispatch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/extract" || r.Header.Get("Authorization") != "Bearer tvly-test" {
			t.Errorf("request %s %v", r.URL.Path, r.Header)
		}
		io.WriteString(w, `{"results":[{"url":"https://go.dev/doc","raw_content":"`+strings.Repeat("x", 50_000)+`"}],"failed_results":[]}`)
	}))
	defer srv.Close()
	set := settingsMap{websearch.SettingProvider: websearch.Tavily, websearch.EndpointSetting(websearch.Tavily): srv.URL}
	links := providerLinks{websearch.NewService(websearch.Deps{Settings: set, Secrets: secretsMap{"websearch.tavily": "tvly-test"}, HTTP: srv.Client()})}
	page, handled, err := links.ParseLink(t.Context(), "https://go.dev/doc")
	if err != nil || !handled || page.Provider != websearch.Tavily || page.Chars != 50_000 || page.Dropped != 50_000-len([]rune(page.Markdown)) {
		t.Fatalf("page %+v handled %v err %v", page, handled, err)
	}
	links = providerLinks{websearch.NewService(websearch.Deps{Settings: set, Secrets: secretsMap{}})}
	if _, handled, err := links.ParseLink(t.Context(), "https://go.dev/doc"); !handled || !apperr.Is(err, apperr.TavilyKeyRequired) {
		t.Fatalf("no key: handled %v, %v", handled, err)
	}
	set[websearch.SettingProvider] = websearch.Bing
	if _, handled, err := links.ParseLink(t.Context(), "https://go.dev/doc"); handled || err != nil {
		t.Fatalf("bing: handled %v, %v", handled, err)
	}
}

// TestCapabilityDeclaresSearch: the capability carries the search tool, its settings and
// every provider's key, and `cairn search`.
func TestCapabilityDeclaresSearch(t *testing.T) {
	c := Capability()
	if len(c.Secrets) != 9 || c.Secrets[0] != "websearch.tavily" {
		t.Fatalf("secrets %v", c.Secrets)
	}
	var keys, cmds []string
	for _, s := range c.Settings {
		keys = append(keys, s.Key)
	}
	for _, cmd := range c.Commands {
		cmds = append(cmds, cmd.Name)
	}
	if !strings.Contains(strings.Join(keys, " "), websearch.SettingProvider) || strings.Join(cmds, " ") != "search fetch" {
		t.Fatalf("settings %v commands %v", keys, cmds)
	}
}

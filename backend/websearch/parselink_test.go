package websearch

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

// TestParseLinkSetMatchesTheProviders is the consistency test: every provider is built,
// and the exported set of link-parsing providers must be exactly those whose
// SupportsParseLink says so; a provider outside the set must refuse ParseLink.
func TestParseLinkSetMatchesTheProviders(t *testing.T) {
	if len(catalog()) != 12 {
		t.Fatalf("%d providers, want 12", len(catalog()))
	}
	var flagged []string
	for _, info := range Providers() {
		p, ok := New(info.ID, Config{})
		if !ok || p.ID() != info.ID {
			t.Fatalf("%s: built %v", info.ID, p)
		}
		if p.SupportsParseLink() {
			flagged = append(flagged, info.ID)
		} else if _, err := p.ParseLink(t.Context(), "https://go.dev/"); !apperr.Is(err, apperr.ParseLinkUnsupported) {
			t.Errorf("%s cannot parse links but ParseLink answered %v", info.ID, err)
		}
		if info.ParseLink != p.SupportsParseLink() {
			t.Errorf("%s: Info.ParseLink %v, SupportsParseLink %v", info.ID, info.ParseLink, p.SupportsParseLink())
		}
	}
	set := slices.Clone(ParseLinkProviders)
	slices.Sort(set)
	slices.Sort(flagged)
	if !slices.Equal(set, flagged) {
		t.Fatalf("ParseLinkProviders %v, providers that parse links %v", set, flagged)
	}
}

type pageCase struct {
	id, path, ok, empty string
	urlOf               func(r *http.Request, b map[string]any) string
}

func pageCases() []pageCase {
	bodyURL := func(_ *http.Request, b map[string]any) string { return b["url"].(string) }
	firstURL := func(_ *http.Request, b map[string]any) string { return b["urls"].([]any)[0].(string) }
	return []pageCase{
		{Tavily, "/extract", `{"results":[{"url":"https://go.dev/doc","raw_content":"# Docs\n\nRead them.","images":[]}],"failed_results":[],"response_time":0.2}`,
			`{"results":[],"failed_results":[{"url":"https://go.dev/doc","error":"Failed to fetch url"}],"response_time":0.2}`, firstURL},
		{Exa, "/contents", `{"requestId":"r","results":[{"id":"https://go.dev/doc","url":"https://go.dev/doc","title":"Docs","text":"# Docs\n\nRead them."}],"statuses":[{"id":"https://go.dev/doc","status":"success"}]}`,
			`{"requestId":"r","results":[],"statuses":[{"id":"https://go.dev/doc","status":"error","error":{"tag":"CRAWL_NOT_FOUND","httpStatusCode":404}}]}`, firstURL},
		{Jina, "/", `{"code":200,"status":20000,"data":{"title":"Docs","url":"https://go.dev/doc","content":"# Docs\n\nRead them.","description":""}}`,
			`{"code":200,"status":20000,"data":{"title":"","url":"https://go.dev/doc","content":""}}`, bodyURL},
		{Firecrawl, "/v2/scrape", `{"success":true,"data":{"markdown":"# Docs\n\nRead them.","metadata":{"title":"Docs","sourceURL":"https://go.dev/doc","statusCode":200}}}`,
			`{"success":true,"data":{"markdown":"","metadata":{"sourceURL":"https://go.dev/doc","statusCode":404}}}`, bodyURL},
	}
}

// TestParseLinkThroughTheProvider: the providers that read pages do it through their own
// API (extract, contents, reader, scrape); an empty extraction is parse_link_failed with
// the service's reason, for the model.
func TestParseLinkThroughTheProvider(t *testing.T) {
	for _, c := range pageCases() {
		t.Run(c.id, func(t *testing.T) {
			body := c.ok
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				raw, _ := io.ReadAll(r.Body)
				var b map[string]any
				_ = json.Unmarshal(raw, &b)
				if r.URL.Path != c.path || c.urlOf(r, b) != "https://go.dev/doc" {
					t.Errorf("%s: %s %s", c.id, r.URL.Path, raw)
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, body)
			}))
			defer srv.Close()
			p, _ := New(c.id, Config{Endpoint: srv.URL, HTTP: srv.Client(), Key: "test-key-123"})
			page, err := p.ParseLink(t.Context(), "https://go.dev/doc")
			if err != nil || !strings.Contains(page.Content, "Read them.") || page.URL != "https://go.dev/doc" || page.Provider != c.id {
				t.Fatalf("page %+v, %v", page, err)
			}
			body = c.empty
			_, err = p.ParseLink(t.Context(), "https://go.dev/doc")
			ae := apperr.From(err)
			if ae.Code != apperr.ParseLinkFailed || !strings.Contains(ae.Message, "https://go.dev/doc") {
				t.Fatalf("empty extraction: %+v", ae)
			}
		})
	}
}

// TestTavilyExtractWithoutKey: parse_link through Tavily without a key is
// tavily_api_key_required, and nothing is sent.
func TestTavilyExtractWithoutKey(t *testing.T) {
	p, _ := New(Tavily, Config{Endpoint: "http://127.0.0.1:1"})
	_, err := p.ParseLink(t.Context(), "https://go.dev/")
	if !apperr.Is(err, apperr.TavilyKeyRequired) {
		t.Fatal(err)
	}
	if m := apperr.From(err).Message; !strings.Contains(m, "Tavily") {
		t.Fatal(m)
	}
}

// TestTavilyExtractMessage is the seed's technical reason, word for word.
func TestTavilyExtractMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"results":[],"failed_results":[],"response_time":0.1}`)
	}))
	defer srv.Close()
	p, _ := New(Tavily, Config{Endpoint: srv.URL, HTTP: srv.Client(), Key: "k"})
	_, err := p.ParseLink(t.Context(), "https://example.com/a")
	if got := apperr.From(err).Message; got != "Tavily extract API returned no results for https://example.com/a" {
		t.Fatal(got)
	}
}

// TestJinaReaderHost: the reader is r.jina.ai beside s.jina.ai; a custom base serves both.
func TestJinaReaderHost(t *testing.T) {
	if got := (&jina{}).readerBase(); got != "https://r.jina.ai" {
		t.Fatal(got)
	}
	if got := (&jina{cfg: Config{Endpoint: "http://127.0.0.1:9/jina"}}).readerBase(); got != "http://127.0.0.1:9/jina" {
		t.Fatal(got)
	}
}

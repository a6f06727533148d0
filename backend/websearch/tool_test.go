package websearch

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestSearchToolArguments: the schema's arguments become a request; bad ones are refused
// before anything is sent.
func TestSearchToolArguments(t *testing.T) {
	cases := []struct {
		args string
		want Request
		err  bool
	}{
		{`{"query":" 北京 天气 "}`, Request{Query: "北京 天气"}, false},
		{`{"query":"go","count":3,"freshness":"week","site":"https://Go.dev/doc"}`, Request{Query: "go", Options: Options{Count: 3, Freshness: PastWeek, Site: "go.dev"}}, false},
		{`{"query":"go","site":"site:pkg.go.dev"}`, Request{Query: "go", Options: Options{Site: "pkg.go.dev"}}, false},
		{`{"query":""}`, Request{}, true},
		{`{"query":"go","freshness":"decade"}`, Request{}, true},
		{`{"query":"go","count":50}`, Request{}, true},
		{`{"query":"go","site":"a b"}`, Request{}, true},
		{`{"query":`, Request{}, true},
	}
	for _, c := range cases {
		got, err := parseArgs(json.RawMessage(c.args))
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("%s: %+v, %v", c.args, got, err)
		}
	}
	e := SearchTool(nil)
	if e.Name != "web_search" || !e.ReadOnly || !e.Cancellable || e.Applies(tools.Scope{}) || !e.Applies(tools.Scope{Toolsets: []string{"web"}}) {
		t.Fatalf("entry %+v", e)
	}
	if err := tools.NewRegistry().Register(e); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"enum":["day","week","month","year"]`, `"maximum":20`, `"required":["query"]`, `"maxLength":400`} {
		if !strings.Contains(string(e.InputSchema), want) {
			t.Errorf("schema %s lacks %s", e.InputSchema, want)
		}
	}
}

// TestSearchToolRuns: the model reads who answered and numbered results; the card gets
// the answer as JSON; a failure is the tool's error, not an empty answer.
func TestSearchToolRuns(t *testing.T) {
	serper := serve(t, Serper, "https://go.dev/")
	svc := newTestService(t, map[string]any{SettingProvider: Serper, EndpointSetting(Serper): serper.URL}, nil)
	e := SearchTool(svc)
	res, err := e.Execute(t.Context(), json.RawMessage(`{"query":"golang"}`), func(tools.Progress) {})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, `Results from Serper for "golang"`) || !strings.Contains(res.Content, "[1] T https://go.dev/\nhttps://go.dev/") {
		t.Fatal(res.Content)
	}
	var ans Answer
	if json.Unmarshal(res.Display, &ans) != nil || ans.Provider != Serper || len(ans.Results) != 1 {
		t.Fatalf("display %s", res.Display)
	}
	svc = newTestService(t, map[string]any{SettingProvider: Tavily}, nil)
	_, err = SearchTool(svc).Execute(t.Context(), json.RawMessage(`{"query":"golang"}`), func(tools.Progress) {})
	if !apperr.Is(err, apperr.TavilyKeyRequired) {
		t.Fatal(err)
	}
}

// TestSearchCommand: `cairn search` prints escaped text or JSON and asks --provider alone.
func TestSearchCommand(t *testing.T) {
	serper := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"organic":[{"title":"evil \u001b[2J title","link":"https://go.dev/","snippet":"s"}]}`)
	}))
	defer serper.Close()
	svc := newTestService(t, map[string]any{SettingProvider: Tavily, EndpointSetting(Serper): serper.URL}, nil)
	var out, errOut bytes.Buffer
	if err := RunCommand(t.Context(), svc, []string{"--provider", "serper", "go", "lang", "--count", "2"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), `for "go lang"`) {
		t.Fatalf("%q", out.String())
	}
	out.Reset()
	if err := RunCommand(t.Context(), svc, []string{"--json", "--provider=serper", "go"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var ans Answer
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil || ans.Provider != Serper {
		t.Fatal(out.String(), err)
	}
	if err := RunCommand(t.Context(), svc, nil, &out, &errOut); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatal(err)
	}
	if err := RunCommand(t.Context(), svc, []string{"go"}, &out, &errOut); !apperr.Is(err, apperr.TavilyKeyRequired) {
		t.Fatal(err)
	}
}

// TestNormalizeURL: the forms that are one page for de-duplication.
func TestNormalizeURL(t *testing.T) {
	same := []string{"https://www.Go.dev/doc/", "http://go.dev/doc", "https://go.dev:443/doc#intro", "https://go.dev/doc?utm_source=x&utm_medium=y"}
	for _, u := range same {
		if got := NormalizeURL(u); got != "go.dev/doc" {
			t.Errorf("%s → %s", u, got)
		}
	}
	if NormalizeURL("https://go.dev/doc?b=2&a=1") != NormalizeURL("https://go.dev/doc?a=1&b=2") || NormalizeURL("https://go.dev/a") == NormalizeURL("https://go.dev/b") {
		t.Error("query parameters")
	}
}

// TestRetryAfter reads both forms of the header.
func TestRetryAfter(t *testing.T) {
	now := mustTime(t, "Mon, 01 Dec 2026 10:00:00 GMT")
	if d := retryAfter("120", now); d.Seconds() != 120 {
		t.Fatal(d)
	}
	if d := retryAfter("Mon, 01 Dec 2026 10:00:30 GMT", now); d.Seconds() != 30 {
		t.Fatal(d)
	}
	if d := retryAfter("soon", now); d != 0 {
		t.Fatal(d)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := http.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

package webfetch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/webfetch"
)

type fakeSettings map[string]string

func (f fakeSettings) String(_ context.Context, key string) string { return f[key] }

// fakeProvider stands in for a search provider; handled says whether it reads pages.
type fakeProvider struct {
	handled bool
	calls   int
}

func (p *fakeProvider) ParseLink(_ context.Context, url string) (webfetch.Page, bool, error) {
	p.calls++
	if !p.handled {
		return webfetch.Page{}, false, nil
	}
	return webfetch.Page{URL: url, Title: "From the provider", Markdown: "extracted by the provider", Provider: "tavily"}, true, nil
}

func run(t *testing.T, e tools.Entry, args string) (tools.Result, error) {
	t.Helper()
	e.Namespace = "web" // the capability's, as service registers it
	if err := tools.NewRegistry().Register(e); err != nil {
		t.Fatalf("register: %v", err)
	}
	if err := e.ValidateInput(context.Background(), json.RawMessage(args)); err != nil {
		return tools.Result{}, err
	}
	return e.Execute(context.Background(), json.RawMessage(args), func(tools.Progress) {})
}

func TestToolDispatchesToTheProviderOrTheFetcher(t *testing.T) {
	s := newSite(t)
	s.serve("/a", "text/html", []byte(article("Fetched here", paragraphs(lorem, 3))))
	base := webfetch.Options{Dialer: s.dialer, NoBrowser: true}
	args := `{"url": "` + s.url("/a") + `"}`

	reads := &fakeProvider{handled: true}
	res, err := run(t, webfetch.NewReader(base, nil, reads).Tool(), args)
	if err != nil || !strings.Contains(res.Content, "extracted by the provider") || !strings.Contains(res.Content, "Read by: tavily") || s.hit("/a") != 0 {
		t.Fatalf("provider that reads pages: %+v, %v (site hit %d)", res, err, s.hit("/a"))
	}

	cannot := &fakeProvider{}
	res, err = run(t, webfetch.NewReader(base, nil, cannot).Tool(), args)
	if err != nil || cannot.calls != 1 || !strings.Contains(res.Content, "# Fetched here") || !strings.Contains(res.Content, "Hikers build them") {
		t.Fatalf("provider that cannot: %+v, %v", res, err)
	}
	var card webfetch.Card
	if err := json.Unmarshal(res.Display, &card); err != nil || card.Title != "Fetched here" || card.URL != s.url("/a") || card.Bytes == 0 || card.Preview == "" {
		t.Fatalf("card %s: %v", res.Display, err)
	}
}

func TestToolFailuresAreTwoLayer(t *testing.T) {
	s := newSite(t)
	base := webfetch.Options{Dialer: s.dialer, NoBrowser: true}
	e := webfetch.NewReader(base, nil, nil).Tool()
	if e.Name != "web_fetch" || len(e.Aliases) != 1 || e.Aliases[0] != "parse_link" || !e.ReadOnly {
		t.Fatalf("entry %+v", e)
	}
	_, err := run(t, e, `{"url": "file:///etc/passwd"}`)
	if !apperr.Is(err, apperr.ParseLinkFailed) {
		t.Fatalf("file URL: %v", err)
	}
	_, err = run(t, e, `{"url": "`+s.loopbackURL("/")+`"}`)
	ae := apperr.From(err)
	if ae.Code != apperr.FetchBlockedAddress || ae.I18nKey != "errors.fetch_blocked_address" || ae.Params["host"] != "127.0.0.1" ||
		!strings.Contains(ae.Message, "127.0.0.1 is not a public internet address") {
		t.Fatalf("loopback: %+v", ae)
	}
}

func TestReaderReadsSettings(t *testing.T) {
	s := newSite(t)
	s.serve("/nas", "text/plain", []byte("disk status: fine"))
	base := webfetch.Options{Dialer: s.dialer, NoBrowser: true}
	u := "http://nas.example:" + s.port + "/nas"
	p, err := webfetch.NewReader(base, fakeSettings{webfetch.SettingAllowedHosts: "printer.example, nas.example"}, nil).Read(context.Background(), u)
	if err != nil || p.Markdown != "disk status: fine" {
		t.Fatalf("allowed in settings: %+v, %v", p, err)
	}
	_, err = webfetch.NewReader(base, fakeSettings{"websearch.proxy": "not a proxy"}, nil).Read(context.Background(), u)
	if ae := apperr.From(err); ae.Code != apperr.ParseLinkFailed || ae.Action == nil || ae.Action.Target != "web-search" {
		t.Fatalf("bad proxy setting: %+v", ae)
	}
}

func TestFetchCommand(t *testing.T) {
	s := newSite(t)
	s.serve("/a", "text/html", []byte(article("Terminal \x1b[31mred\u202e", paragraphs(lorem, 3))))
	cmd := webfetch.Command(webfetch.Options{Dialer: s.dialer, NoBrowser: true}, nil)
	runCmd := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		term := capability.Terminal{Stdout: &out, Stderr: &errOut, Open: func(context.Context) (capability.Env, error) { return capability.Env{}, nil }}
		err := cmd.Run(context.Background(), term, args)
		return out.String(), err
	}
	out, err := runCmd(s.url("/a"))
	if err != nil || !strings.Contains(out, "Hikers build them") || strings.ContainsAny(out, "\x1b\u202e") {
		t.Fatalf("text: %q, %v", out, err)
	}
	out, err = runCmd("--json", s.url("/a"))
	var p webfetch.Page
	if err != nil || json.Unmarshal([]byte(out), &p) != nil || p.URL != s.url("/a") || !strings.Contains(p.Markdown, "Hikers") || strings.ContainsAny(out, "\x1b\u202e") {
		t.Fatalf("json: %q, %v", out, err)
	}
	if _, err := runCmd(); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatalf("no URL: %v", err)
	}
	if _, err := runCmd(s.loopbackURL("/a")); !apperr.Is(err, apperr.FetchBlockedAddress) {
		t.Fatalf("loopback: %v", err)
	}
	var ae *apperr.Error
	if _, err := runCmd("--nope", "x"); !errors.As(err, &ae) || ae.Code != apperr.InvalidArgument {
		t.Fatalf("bad flag: %v", err)
	}
}

package webfetch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/webfetch"
	"github.com/cairn-app/cairn/backend/webfetch/benchpages"
)

const lorem = "Cairns are human-made piles of stones raised for many purposes, from prehistoric times to the present. " +
	"Hikers build them to mark a trail across bare rock where no path shows, and each walker adds a stone."

func TestFetchKeepsStructureAndMetadata(t *testing.T) {
	s := newSite(t)
	body := `<p class="byline">By <span rel="author">Ada Lovelace</span></p>` + paragraphs(lorem, 4) +
		`<p>See <a href="/guide">the trail guide</a> for more.</p>
<ul><li>first stone</li><li>second stone</li></ul>
<table><thead><tr><th>Height</th><th>Place</th></tr></thead><tbody><tr><td>2 m</td><td>Skye</td></tr><tr><td>5 m</td><td>Iceland</td></tr></tbody></table>
<pre><code class="language-go">func stack() { return }</code></pre>` + paragraphs(lorem, 2)
	page := strings.Replace(article("Building cairns", body), "<head>",
		`<head><meta name="author" content="Ada Lovelace"><meta property="article:published_time" content="2024-05-06T10:00:00Z">`, 1)
	s.serve("/a", "text/html; charset=utf-8", []byte(page))
	p, err := s.fetcher(webfetch.Options{}).Fetch(context.Background(), s.url("/a"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[the trail guide](" + s.url("/guide") + ")",
		"- first stone",
		"| Height | Place   |",
		"| 5 m    | Iceland |",
		"```go\nfunc stack() { return }\n```",
		"Hikers build them",
	} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, p.Markdown)
		}
	}
	if strings.Contains(p.Markdown, "About") {
		t.Errorf("navigation kept:\n%s", p.Markdown)
	}
	if p.Title != "Building cairns" || p.Byline != "Ada Lovelace" || p.Published != "2024-05-06" {
		t.Errorf("title %q byline %q published %q", p.Title, p.Byline, p.Published)
	}
	text := p.Text()
	for _, want := range []string{"# Building cairns", "URL: " + s.url("/a"), "By: Ada Lovelace", "Published: 2024-05-06"} {
		if !strings.Contains(text, want) {
			t.Errorf("Text() lacks %q:\n%s", want, text)
		}
	}
}

func encode(t *testing.T, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFetchDecodesLegacyCharsets(t *testing.T) {
	zh := "石堆是人们用石头堆成的标记，古往今来用途很多。徒步者在看不到路的岩石上用它来标出小路，每个路过的人都会添上一块石头。"
	tw := "石堆是人們用石頭堆成的標記，古往今來用途很多。徒步者在看不到路的岩石上用它來標出小路，每個路過的人都會添上一塊石頭。"
	ja := "ケルンは人が積み上げた石の山で、昔から今まで様々な目的で作られてきた。登山者は道の見えない岩場に道しるべとして積み、通る人が石を一つずつ加えていく。"
	tests := []struct {
		name, ct, meta, text string
		enc                  encoding.Encoding
	}{
		{"gbk from the header", "text/html; charset=gbk", "", zh, simplifiedchinese.GBK},
		{"gb2312 from a meta", "text/html", `<meta charset="gb2312">`, zh, simplifiedchinese.GBK},
		{"big5 from http-equiv", "text/html", `<meta http-equiv="Content-Type" content="text/html; charset=big5">`, tw, traditionalchinese.Big5},
		{"shift-jis from a meta", "text/html", `<meta charset="shift_jis">`, ja, japanese.ShiftJIS},
		{"gbk undeclared (sniffed)", "text/html", "", zh, simplifiedchinese.GBK},
		{"shift-jis undeclared (sniffed)", "text/html", "", ja, japanese.ShiftJIS},
		{"big5 undeclared (sniffed)", "text/html", "", tw, traditionalchinese.Big5},
	}
	s := newSite(t)
	f := s.fetcher(webfetch.Options{})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := fmt.Sprintf("/cs%d", i)
			page := strings.Replace(article("T", paragraphs(tt.text, 6)), "<head>", "<head>"+tt.meta, 1)
			s.serve(path, tt.ct, encode(t, tt.enc, page))
			p, err := f.Fetch(context.Background(), s.url(path))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p.Markdown, tt.text) {
				t.Fatalf("charset %s: text not decoded:\n%.300s", p.Charset, p.Markdown)
			}
		})
	}
}

func TestFetchRefusesTooLarge(t *testing.T) {
	s := newSite(t)
	big := bytes.Repeat([]byte("<p>"+lorem+"</p>\n"), 20<<20/(len(lorem)+8))
	s.serve("/big", "text/html", big) // Content-Length set: refused before reading
	s.handle("/chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for i := 0; i < len(big); i += 1 << 16 {
			_, _ = w.Write(big[i:min(i+1<<16, len(big))])
			w.(http.Flusher).Flush()
		}
	})
	f := s.fetcher(webfetch.Options{})
	for _, path := range []string{"/big", "/chunked"} {
		_, err := f.Fetch(context.Background(), s.url(path))
		if !apperr.Is(err, apperr.FetchTooLarge) {
			t.Fatalf("%s: err %v, want fetch_too_large", path, err)
		}
		if !strings.Contains(err.Error(), "10 MiB") {
			t.Errorf("message %q does not name the limit", err)
		}
	}
}

func TestFetchRefusesNonPublicAddresses(t *testing.T) {
	s := newSite(t)
	s.handle("/secret", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("secret")) })
	redirect := func(to string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) }
	}
	s.handle("/r1", redirect("/r2"))
	s.handle("/r2", redirect("/r3"))
	s.handle("/r3", redirect(s.loopbackURL("/secret")))
	s.handle("/to-rebind", redirect("http://rebind.example:"+s.port+"/secret"))
	s.handle("/to-decimal", redirect("http://2130706433:"+s.port+"/secret"))
	s.handle("/to-octal", redirect("http://0177.0.0.1:"+s.port+"/secret"))
	s.handle("/to-metadata", redirect("http://metadata.example/latest/meta-data/"))
	f := s.fetcher(webfetch.Options{})
	for _, u := range []string{
		s.url("/r1"), // a chain that ends on 127.0.0.1
		s.url("/to-rebind"),
		s.url("/to-decimal"),
		s.url("/to-octal"),
		s.url("/to-metadata"),
		s.loopbackURL("/secret"),
		"http://[::1]:" + s.port + "/secret",
		"http://mapped.example:" + s.port + "/secret",
		"http://cgnat.example:" + s.port + "/secret",
		"http://169.254.169.254/latest/meta-data/",
		"http://metadata.example/",
		"http://2130706433:" + s.port + "/secret",
		"http://0x7f.1:" + s.port + "/secret",
	} {
		_, err := f.Fetch(context.Background(), u)
		if !apperr.Is(err, apperr.FetchBlockedAddress) {
			t.Errorf("%s: err %v, want fetch_blocked_address", u, err)
			continue
		}
		ae := apperr.From(err)
		if ae.Action == nil || ae.Action.Target != "web-search" {
			t.Errorf("%s: action %+v, want web search settings", u, ae.Action)
		}
	}
	if n := s.hit("/secret"); n != 0 {
		t.Fatalf("the private address was reached %d times", n)
	}
	if s.hit("/r3") != 1 {
		t.Fatalf("the chain did not run: /r3 hit %d times", s.hit("/r3"))
	}
}

func TestFetchAllowedPrivateHost(t *testing.T) {
	s := newSite(t)
	s.serve("/nas", "text/plain; charset=utf-8", []byte("disk status: fine"))
	u := "http://nas.example:" + s.port + "/nas"
	if _, err := s.fetcher(webfetch.Options{}).Fetch(context.Background(), u); !apperr.Is(err, apperr.FetchBlockedAddress) {
		t.Fatalf("not allowed yet: err %v", err)
	}
	p, err := s.fetcher(webfetch.Options{AllowHosts: []string{"nas.example"}}).Fetch(context.Background(), u)
	if err != nil || p.Markdown != "disk status: fine" {
		t.Fatalf("allowed host: %+v, %v", p, err)
	}
}

func TestFetchRedirectLimit(t *testing.T) {
	s := newSite(t)
	for i := 0; i < 8; i++ {
		if i == 3 {
			continue
		}
		s.handle(fmt.Sprintf("/loop%d", i), func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, fmt.Sprintf("/loop%d", i+1), http.StatusFound)
		})
	}
	s.serve("/loop3", "text/plain", []byte("arrived"))
	f := s.fetcher(webfetch.Options{MaxRedirects: 3})
	p, err := f.Fetch(context.Background(), s.url("/loop0"))
	if err != nil || p.Markdown != "arrived" || p.Requested != s.url("/loop0") || p.URL != s.url("/loop3") {
		t.Fatalf("three redirects: %+v, %v", p, err)
	}
	_, err = s.fetcher(webfetch.Options{MaxRedirects: 2}).Fetch(context.Background(), s.url("/loop0"))
	if !apperr.Is(err, apperr.ParseLinkFailed) || !strings.Contains(err.Error(), "more than 2 redirects") {
		t.Fatalf("over the limit: %v", err)
	}
}

func TestFetchPDF(t *testing.T) {
	doc := fpdf.New("P", "mm", "A4", "")
	doc.SetTitle("Trail markers", true)
	doc.AddPage()
	doc.SetFont("Helvetica", "", 12)
	doc.Cell(40, 10, "Cairns mark the trail above the tree line.")
	doc.AddPage()
	doc.Cell(40, 10, "Second page about stone piles.")
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		t.Fatal(err)
	}
	s := newSite(t)
	s.serve("/doc.pdf", "application/pdf", buf.Bytes())
	s.serve("/broken.pdf", "application/pdf", []byte("%PDF-1.4\nnot really"))
	f := s.fetcher(webfetch.Options{})
	p, err := f.Fetch(context.Background(), s.url("/doc.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Markdown, "Cairns mark the trail above the tree line.") || !strings.Contains(p.Markdown, "Second page") || p.Title != "Trail markers" {
		t.Fatalf("pdf: title %q text %q", p.Title, p.Markdown)
	}
	if _, err := f.Fetch(context.Background(), s.url("/broken.pdf")); !apperr.Is(err, apperr.ParseLinkFailed) {
		t.Fatalf("broken pdf: %v", err)
	}
}

func TestFetchFailures(t *testing.T) {
	s := newSite(t)
	s.serve("/img", "image/png", []byte("\x89PNG\r\n\x1a\nxxxx"))
	s.serve("/zip", "application/zip", []byte("PK\x03\x04"))
	s.handle("/missing", http.NotFound)
	f := s.fetcher(webfetch.Options{})
	tests := []struct {
		url  string
		code apperr.Code
		msg  string
	}{
		{s.url("/img"), apperr.FetchUnsupportedType, "image/png is not HTML, text or PDF"},
		{s.url("/zip"), apperr.FetchUnsupportedType, "application/zip"},
		{s.url("/missing"), apperr.ParseLinkFailed, "HTTP 404"},
		{"ftp://site.example/x", apperr.ParseLinkFailed, "not an http or https address"},
		{"file:///etc/passwd", apperr.ParseLinkFailed, "not an http or https address"},
		{"http://user:pw@site.example/", apperr.ParseLinkFailed, "not an http or https address"},
		{"http://unknown.example/", apperr.ParseLinkFailed, "no such host"},
	}
	for _, tt := range tests {
		_, err := f.Fetch(context.Background(), tt.url)
		if !apperr.Is(err, tt.code) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: err %v, want %s with %q", tt.url, err, tt.code, tt.msg)
		}
	}
}

func TestFetchCutsLongPages(t *testing.T) {
	s := newSite(t)
	s.serve("/long", "text/html", []byte(article("Long", paragraphs(lorem, 200))))
	p, err := s.fetcher(webfetch.Options{MaxChars: 2000}).Fetch(context.Background(), s.url("/long"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(p.Markdown)); n > 2000 || n < 1500 {
		t.Fatalf("kept %d characters", n)
	}
	if p.Dropped != p.Chars-len([]rune(p.Markdown)) || p.Chars < 40000 {
		t.Fatalf("chars %d dropped %d", p.Chars, p.Dropped)
	}
	if want := fmt.Sprintf("[Cut: the last %d of %d characters were dropped.]", p.Dropped, p.Chars); !strings.Contains(p.Text(), want) {
		t.Fatalf("no cut note %q in\n...%s", want, p.Text()[len(p.Text())-200:])
	}
	// Text far past the cut is dropped before conversion; the count stays close to the
	// whole page's Markdown.
	whole, err := s.fetcher(webfetch.Options{MaxChars: 1 << 20}).Fetch(context.Background(), s.url("/long"))
	if err != nil || whole.Dropped != 0 {
		t.Fatalf("whole page: %+v, %v", whole.Dropped, err)
	}
	if d := p.Chars - whole.Chars; d > whole.Chars/20 || d < -whole.Chars/20 {
		t.Fatalf("counted %d characters, the whole page has %d", p.Chars, whole.Chars)
	}
	if !strings.HasPrefix(whole.Markdown, p.Markdown) {
		t.Fatalf("the cut page is not the start of the whole one")
	}
}

func TestFetchClientRenderedWithoutBrowser(t *testing.T) {
	s := newSite(t)
	s.serve("/app", "text/html", []byte(`<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`))
	p, err := s.fetcher(webfetch.Options{NoBrowser: true}).Fetch(context.Background(), s.url("/app"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Rendered || !strings.Contains(p.Note, "no Chromium is installed") || !strings.Contains(p.Text(), "built by JavaScript") {
		t.Fatalf("page %+v", p)
	}
}

func TestFetchTimeLimit(t *testing.T) {
	s := newSite(t)
	s.handle("/slow-headers", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	s.handle("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for {
			if _, err := w.Write([]byte("a")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	f := s.fetcher(webfetch.Options{Timeout: 300 * time.Millisecond})
	for _, path := range []string{"/slow-headers", "/slow-body"} {
		start := time.Now()
		_, err := f.Fetch(context.Background(), s.url(path))
		if !apperr.Is(err, apperr.ParseLinkFailed) || !strings.Contains(err.Error(), "deadline exceeded") {
			t.Errorf("%s: err %v", path, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: gave up after %v", path, d)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := s.fetcher(webfetch.Options{}).Fetch(ctx, s.url("/slow-headers")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestFetchStopsDuringConversion: a stop reaches a call busy converting a large page; it
// does not wait for the conversion to end.
func TestFetchStopsDuringConversion(t *testing.T) {
	s := newSite(t)
	s.serve("/big-article", "text/html; charset=utf-8", []byte(benchpages.Article(4<<20).HTML))
	f := s.fetcher(webfetch.Options{MaxChars: 1 << 30})
	start := time.Now()
	if _, err := f.Fetch(context.Background(), s.url("/big-article")); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	ctx, cancel := context.WithCancel(context.Background())
	s.handle("/big-article-signal", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(benchpages.Article(4 << 20).HTML))
		time.AfterFunc(20*time.Millisecond, cancel) // the body is sent: conversion is under way
	})
	start = time.Now()
	_, err := f.Fetch(ctx, s.url("/big-article-signal"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if stopped := time.Since(start); stopped > whole/2 {
		t.Fatalf("stopped after %v; a whole conversion takes %v", stopped, whole)
	}
}

package webfetch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/webfetch"
)

// chromium is the browser the render test uses (the CI's dependencies install it there).
const chromium = "/usr/bin/chromium"

// TestFetchRendersClientSidePages renders a page whose HTML is an empty shell filled in by
// a script, in the real Chromium. The page only comes out if Chromium's requests go
// through the guard: Chromium cannot resolve site.example itself (only the test resolver
// knows it). The page also asks for loopback, private and metadata addresses, which must
// never be reached.
func TestFetchRendersClientSidePages(t *testing.T) {
	s := newSite(t)
	sneaky := []string{
		s.loopbackURL("/secret"),
		"http://localhost:" + s.port + "/secret",
		"http://rebind.example:" + s.port + "/secret",
		"http://metadata.example/latest/meta-data/",
		"http://2130706433:" + s.port + "/secret",
	}
	script := `
const sneaky = ` + jsArray(sneaky) + `;
const img = u => new Promise(done => { const i = new Image(); i.onload = i.onerror = done; i.src = u + "?img"; });
// The content appears only after every sneaky request has ended, so none is still in
// flight when the test counts what reached the site.
Promise.allSettled(sneaky.flatMap(u => [fetch(u, {mode: "no-cors"}), img(u)]))
.then(() => fetch("/data.json")).then(r => r.json()).then(d => {
  const root = document.getElementById("root");
  root.innerHTML = "<article><h1>" + d.title + "</h1>" + d.paragraphs.map(p => "<p>" + p + "</p>").join("") + "</article>";
});`
	s.serve("/app", "text/html; charset=utf-8", []byte(`<!doctype html><html><head><title>Loading…</title></head><body><div id="root"></div><script>`+script+`</script></body></html>`))
	s.serve("/data.json", "application/json", []byte(`{"title": "Rendered cairns", "paragraphs": ["`+lorem+`", "`+lorem+`", "The rendered page says so."]}`))
	f := s.fetcher(webfetch.Options{Browser: chromium, RenderTimeout: 45 * time.Second})
	if !f.HasBrowser() {
		t.Fatalf("no Chromium at %s: install the chromium package", chromium)
	}
	p, err := f.Fetch(context.Background(), s.url("/app"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Rendered || !strings.Contains(p.Markdown, "The rendered page says so.") || !strings.Contains(p.Markdown, "Hikers build them") {
		t.Fatalf("not rendered: %+v", p)
	}
	if s.hit("/data.json") != 1 {
		t.Fatalf("data.json hit %d times", s.hit("/data.json"))
	}
	if n := s.hit("/secret"); n != 0 {
		t.Fatalf("the page reached a private address %d times", n)
	}
}

func jsArray(items []string) string {
	q := make([]string, len(items))
	for i, it := range items {
		q[i] = `"` + it + `"`
	}
	return "[" + strings.Join(q, ", ") + "]"
}

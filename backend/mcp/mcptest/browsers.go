package mcptest

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// Browser is a browser-driving MCP server from npm, set up to run against the system's
// Chromium: headless, without a sandbox (containers offer none), with a throwaway
// profile, and behind a proxy so that it reaches nothing but loopback directly.
type Browser struct {
	Name string
	// Tool names: go to a URL, read the page's accessibility snapshot, take a screenshot.
	Navigate, Snapshot, Screenshot string
	// NavArgs are Navigate's arguments for url; ShotArgs Screenshot's (a PNG).
	NavArgs  func(url string) string
	ShotArgs string
	// Args are node's arguments: the entry point and its options, given the proxy's
	// host:port and a directory for the server's files.
	Args func(t testing.TB, proxy, dir string) []string
}

// Browsers are Playwright's and Chrome DevTools' MCP servers, pinned in the lock file.
func Browsers() []Browser {
	return []Browser{{
		Name: "playwright", Navigate: "browser_navigate", Snapshot: "browser_snapshot", Screenshot: "browser_take_screenshot",
		NavArgs:  func(u string) string { return fmt.Sprintf(`{"url":%q}`, u) },
		ShotArgs: `{"type":"png"}`,
		Args: func(t testing.TB, proxy, dir string) []string {
			// Playwright sends loopback through a proxy too unless the bypass names it.
			return []string{filepath.Join(Dir(), "node_modules", "@playwright", "mcp", "cli.js"),
				"--headless", "--no-sandbox", "--isolated", "--executable-path", Chromium(t),
				"--proxy-server", "http://" + proxy, "--proxy-bypass", "127.0.0.1",
				"--output-dir", dir, "--viewport-size", "800x600"}
		},
	}, {
		Name: "chrome-devtools", Navigate: "navigate_page", Snapshot: "take_snapshot", Screenshot: "take_screenshot",
		NavArgs:  func(u string) string { return fmt.Sprintf(`{"type":"url","url":%q}`, u) },
		ShotArgs: `{"format":"png"}`,
		Args: func(t testing.TB, proxy, dir string) []string {
			// Chromium itself never proxies loopback; no statistics, no CrUX look-ups.
			return []string{filepath.Join(Dir(), "node_modules", "chrome-devtools-mcp", "build", "src", "bin", "chrome-devtools-mcp.js"),
				"--headless", "--executablePath", Chromium(t), "--userDataDir", filepath.Join(dir, "profile"),
				"--chromeArg=--no-sandbox", "--chromeArg=--proxy-server=http://" + proxy,
				"--no-usage-statistics", "--no-performance-crux", "--no-page-id-routing", "--viewport", "800x600"}
		},
	}}
}

// Chromium is the system's Chromium (Debian's package, which .ci/deps.sh installs): the
// browser servers drive it instead of downloading their own.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("Chromium is required for the browser MCP tests (apt-get install chromium)")
	return ""
}

// PageTitle is the title and heading of the page ServePage serves.
const PageTitle = "Cairn loopback page"

// OffsiteHost is an address of TEST-NET-1 the page loads an image from: the browser must
// ask the proxy for it, never the network.
const OffsiteHost = "192.0.2.7"

// ServePage serves a small page on loopback and returns its URL.
func ServePage(t testing.TB) string {
	t.Helper()
	return "http://" + serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>%[1]s</title><h1>%[1]s</h1><p style="color:#c00">hello</p><img alt="offsite" src="http://%[2]s/pixel.png">`, PageTitle, OffsiteHost)
	})) + "/"
}

// Proxy is an HTTP proxy on loopback that refuses every request and remembers the hosts
// asked for.
type Proxy struct {
	Addr  string // host:port
	mu    sync.Mutex
	hosts []string
}

// StartProxy starts a refusing proxy for the test.
func StartProxy(t testing.TB) *Proxy {
	t.Helper()
	p := &Proxy{}
	p.Addr = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hosts = append(p.hosts, r.Host)
		p.mu.Unlock()
		http.Error(w, "offline", http.StatusForbidden)
	}))
	return p
}

// Asked says whether a request for host (the page's off-site image) reached the proxy.
func (p *Proxy) Asked(host string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.hosts, host)
}

// Hosts are the hosts asked for so far.
func (p *Proxy) Hosts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.hosts)
}

// serve serves h on a loopback port for the test and returns its host:port.
func serve(t testing.TB, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().String()
}

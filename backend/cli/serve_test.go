package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/store"
)

var serveLine = regexp.MustCompile(`^Cairn is serving at (http://127\.0\.0\.1:\d+/\?token=([0-9a-f]{64}))$`)

// startServe runs `cairn serve [args]` on dataDir in the background and returns its first
// line of stdout, the rest of stderr and the exit code once it ends.
func startServe(t *testing.T, ctx context.Context, dataDir string, args ...string) (first string, done <-chan result) {
	t.Helper()
	outR, outW := io.Pipe()
	var errb strings.Builder
	stderr := &lockedWriter{w: &errb}
	env := &Env{Stdin: strings.NewReader(""), Stdout: outW, Stderr: stderr, Deps: Deps{
		NewBound: func(context.Context, *service.Services) any { return &struct{}{} },
	}}
	ch := make(chan result, 1)
	go func() {
		code := Run(ctx, append([]string{"--data-dir", dataDir, "serve"}, args...), env)
		outW.Close()
		stderr.mu.Lock()
		defer stderr.mu.Unlock()
		ch <- result{code: code, stderr: errb.String()}
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v", err)
	}
	go io.Copy(io.Discard, outR)
	return strings.TrimSuffix(line, "\n"), ch
}

// TestServeAnswersARequestSentBeforeTheBackendIsOpen: the URL is printed before the
// backend opens, and a request sent at once is answered, not refused.
func TestServeAnswersARequestSentBeforeTheBackendIsOpen(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, done := startServe(t, ctx, t.TempDir())
	m := serveLine.FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first line %q", first)
	}
	u, _ := url.Parse(m[1])
	req, _ := http.NewRequest("GET", "http://"+u.Host+"/api/health", nil)
	req.Header.Set("Authorization", "Bearer "+m[2])
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health: %d", resp.StatusCode)
	}
	cancel()
	if r := <-done; r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// TestServeDebugStatsOnlyWithTheFlag: /api/debug/stats is served by `serve --debug-stats`
// alone (behind the token), never by default.
func TestServeDebugStatsOnlyWithTheFlag(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	for _, tc := range []struct {
		name   string
		args   []string
		status int
	}{
		{"default", nil, http.StatusNotFound},
		{"--debug-stats", []string{"--debug-stats"}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first, done := startServe(t, ctx, t.TempDir(), tc.args...)
			m := serveLine.FindStringSubmatch(first)
			if m == nil {
				t.Fatalf("first line %q", first)
			}
			u, _ := url.Parse(m[1])
			req, _ := http.NewRequest("GET", "http://"+u.Host+"/api/debug/stats", nil)
			req.Header.Set("Authorization", "Bearer "+m[2])
			resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("debug stats: %d %s, want %d", resp.StatusCode, body, tc.status)
			}
			if tc.status == http.StatusOK && !strings.Contains(string(body), `"goroutines":`) {
				t.Fatalf("debug stats body %s", body)
			}
			cancel()
			if r := <-done; r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
		})
	}
}

// TestServeOnADatabaseItCannotOpen: the URL was already printed, so the error follows on
// stderr, the exit code says it failed, and the port is closed (a browser gets a refused
// connection, not a page that hangs).
func TestServeOnADatabaseItCannotOpen(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	first, done := startServe(t, ctx, dir)
	m := serveLine.FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first line %q", first)
	}
	r := <-done
	if r.code == 0 || !strings.Contains(r.stderr, "999") {
		t.Fatalf("exit %d, stderr %q: want a failure that names the schema version", r.code, r.stderr)
	}
	u, _ := url.Parse(m[1])
	if c, err := net.DialTimeout("tcp", u.Host, 5*time.Second); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after serve failed", u.Host)
	}
}

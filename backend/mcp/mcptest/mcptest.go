// Package mcptest helps tests (and benchmarks) run Cairn's MCP code against real servers:
// the npm packages pinned in backend/mcp/testdata/npm, installed on first use, started on
// free loopback ports; and a database with the MCP tables.
package mcptest

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/store"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// Dir is backend/mcp/testdata/npm, found from this file's location.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "npm")
}

// Install runs `npm ci` (or `npm install` without a lock file) in Dir when node_modules is
// missing. Concurrent test binaries wait for each other through a lock directory.
func Install() error {
	dir := Dir()
	marker := filepath.Join(dir, "node_modules", ".package-lock.json")
	if installed(dir, marker) {
		return nil
	}
	lock := filepath.Join(dir, ".install-lock")
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if err := os.Mkdir(lock, 0o700); err == nil {
			break
		}
		if st, err := os.Stat(lock); err == nil && time.Since(st.ModTime()) > 5*time.Minute {
			_ = os.Remove(lock) // left by a killed run
			continue
		}
		if time.Now().After(deadline) {
			return errors.New("mcptest: timed out waiting for another npm install")
		}
		time.Sleep(200 * time.Millisecond) // another process installs; no channel reaches it
	}
	defer os.Remove(lock)
	if installed(dir, marker) {
		return nil
	}
	args := []string{"install", "--no-audit", "--no-fund"}
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err == nil {
		args = []string{"ci", "--no-audit", "--no-fund"}
	}
	cmd := exec.Command("npm", args...)
	cmd.Dir = dir
	// The browser servers drive the system's Chromium; no package may fetch its own.
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "PUPPETEER_SKIP_DOWNLOAD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm %s in %s: %v\n%s", args[0], dir, err, out)
	}
	return nil
}

// installed: node_modules exists and is not older than the lock file.
func installed(dir, marker string) bool {
	m, err := os.Stat(marker)
	if err != nil {
		return false
	}
	l, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	return err != nil || !l.ModTime().After(m.ModTime())
}

// NeedNPM installs the servers or fails the test.
func NeedNPM(t testing.TB) {
	t.Helper()
	if err := Install(); err != nil {
		t.Fatal(err)
	}
}

// The entry points of the pinned servers.
func Everything() string {
	return filepath.Join(Dir(), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// Filesystem is server-filesystem's entry point (takes allowed directories as args).
func Filesystem() string {
	return filepath.Join(Dir(), "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
}

// Memory is server-memory's entry point.
func Memory() string {
	return filepath.Join(Dir(), "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
}

// Node is the node binary.
func Node(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is required for the MCP tests:", err)
	}
	return p
}

// FreePort returns a loopback port nothing listens on right now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// HTTPServer is server-everything serving HTTP on a free port.
type HTTPServer struct {
	URL  string // the MCP endpoint (/mcp or /sse)
	Port int
	cmd  *exec.Cmd
}

// StartEverythingHTTP starts server-everything in "streamableHttp" (endpoint /mcp) or
// "sse" (endpoint /sse) mode on a free port (both modes default to port 3001 on every
// interface, so PORT is always set) and returns once it listens. It is stopped with the
// test.
func StartEverythingHTTP(t testing.TB, mode string) *HTTPServer {
	t.Helper()
	NeedNPM(t)
	for attempt := 0; ; attempt++ {
		port := FreePort(t)
		s, err := startHTTP(Node(t), mode, port)
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		if attempt == 2 {
			t.Fatal(err)
		}
	}
}

func startHTTP(node, mode string, port int) (*HTTPServer, error) {
	cmd := exec.Command(node, Everything(), mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	setpgid(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = nil
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &HTTPServer{Port: port, cmd: cmd}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		var seen []string
		for sc.Scan() {
			line := sc.Text()
			seen = append(seen, line)
			if !sent && strings.Contains(line, fmt.Sprint(port)) && (strings.Contains(line, "listening") || strings.Contains(line, "running")) {
				ready <- nil
				sent = true
			}
			if !sent && strings.Contains(line, "in use") {
				ready <- fmt.Errorf("port %d in use", port)
				sent = true
			}
		}
		if !sent {
			ready <- fmt.Errorf("server-everything %s exited before listening: %s", mode, strings.Join(seen, " | "))
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			s.Stop()
			return nil, err
		}
	case <-time.After(30 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("server-everything %s did not listen on %d within 30 s", mode, port)
	}
	path := "/mcp"
	if mode == "sse" {
		path = "/sse"
	}
	s.URL = (&url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port), Path: path}).String()
	return s, nil
}

// Stop kills the server's process group.
func (s *HTTPServer) Stop() {
	if s.cmd.Process != nil {
		killGroup(s.cmd)
		_ = s.cmd.Wait()
	}
}

// OpenDB opens a fresh database in dir with the foundation tables and the MCP tables
// (migrations 0001 and 0004 applied directly, so MCP tests do not depend on the other
// packages' migrations).
func OpenDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := OpenDBPath(filepath.Join(t.TempDir(), "cairn.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// OpenDBPath is OpenDB for a given file (used by helper binaries); the tables are
// created only when missing.
func OpenDBPath(path string) (*store.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	var have int
	_ = sqldb.QueryRow("SELECT COUNT(*) FROM sqlite_master WHERE name = 'mcp_servers'").Scan(&have)
	if have == 0 {
		_, file, _, _ := runtime.Caller(0)
		dir := filepath.Join(filepath.Dir(file), "..", "..", "store", "migrations")
		// The foundation, the tool switches and every MCP migration (their names say
		// "_mcp"; 0014 moves the switches into the one table of tool choices), in order.
		names, _ := filepath.Glob(filepath.Join(dir, "*_mcp*.sql"))
		names = append(names, "0001_foundation.sql", "0005_tools.sql")
		slices.SortFunc(names, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
		for _, name := range names {
			name = filepath.Base(name)
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err == nil {
				_, err = sqldb.ExecContext(context.Background(), string(b))
			}
			if err != nil {
				sqldb.Close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return &store.DB{DB: sqldb, Path: path}, nil
}

package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMoveCredentials: every shape of credential outside the secret fields is found,
// replaced by a placeholder and its value returned; references to a secret kept
// elsewhere, and texts that only look alike, stay as they are.
func TestMoveCredentials(t *testing.T) {
	tests := []struct {
		name  string
		in    Server
		args  []string          // after the move
		url   string            // after the move
		env   map[string]string // plain values after the move ("" = now secret)
		moved map[string]string // credential name → value
		warn  int
	}{
		{name: "password in a URL argument",
			in:    Server{Transport: TransportStdio, Args: []string{"-y", "pg-mcp", "postgresql://admin:hunter2-pw@db.example.com:5432/app"}},
			args:  []string{"-y", "pg-mcp", "postgresql://admin:{{cairn-secret:password}}@db.example.com:5432/app"},
			moved: map[string]string{"password": "hunter2-pw"}},
		{name: "--api-key=value",
			in:    Server{Transport: TransportStdio, Args: []string{"server.js", "--api-key=k-1234567890", "--verbose"}},
			args:  []string{"server.js", "--api-key={{cairn-secret:api-key}}", "--verbose"},
			moved: map[string]string{"api-key": "k-1234567890"}},
		{name: "--token value and --password value",
			in:    Server{Transport: TransportStdio, Args: []string{"--token", "t0ken-value", "--password", "pa55word", "--token-file", "/etc/tok"}},
			args:  []string{"--token", "{{cairn-secret:token}}", "--password", "{{cairn-secret:password}}", "--token-file", "/etc/tok"},
			moved: map[string]string{"token": "t0ken-value", "password": "pa55word"}},
		{name: "query parameters in an argument",
			in:    Server{Transport: TransportStdio, Args: []string{"--url=https://api.example.com/v1?api_key=abc123def&region=eu&token=zzz999"}},
			args:  []string{"--url=https://api.example.com/v1?api_key={{cairn-secret:api_key}}&region=eu&token={{cairn-secret:token}}"},
			moved: map[string]string{"api_key": "abc123def", "token": "zzz999"}},
		{name: "key= in the server URL and a password in it",
			in:    Server{Transport: TransportHTTP, URL: "https://bob:s3cret@maps.example.com/mcp?key=AIzaFAKE&lang=en"},
			url:   "https://bob:{{cairn-secret:password}}@maps.example.com/mcp?key={{cairn-secret:key}}&lang=en",
			moved: map[string]string{"password": "s3cret", "key": "AIzaFAKE"}},
		{name: "an env value holding a URL with a password",
			in: Server{Transport: TransportStdio, Args: []string{"x"},
				Env: []Var{{Name: "DATABASE_URL", Value: "mysql://root:toor-pass@localhost/db"}, {Name: "LOG_LEVEL", Value: "debug"}}},
			args:  []string{"x"},
			env:   map[string]string{"DATABASE_URL": "mysql://root:{{cairn-secret:password}}@localhost/db", "LOG_LEVEL": "debug"},
			moved: map[string]string{"password": "toor-pass"}},
		{name: "a credential env name becomes secret",
			in:   Server{Transport: TransportStdio, Args: []string{"x"}, Env: []Var{{Name: "GITHUB_TOKEN", Value: "plain-value"}, {Name: "API_KEY", Value: "${API_KEY}"}}},
			args: []string{"x"},
			env:  map[string]string{"GITHUB_TOKEN": "", "API_KEY": "${API_KEY}"}},
		{name: "an Authorization header argument (mcp-remote)",
			in:    Server{Transport: TransportStdio, Args: []string{"mcp-remote", "https://x.example.com/mcp", "--header", "Authorization: Bearer eyJhbGciOi.payload.sig"}},
			args:  []string{"mcp-remote", "https://x.example.com/mcp", "--header", "Authorization: Bearer {{cairn-secret:authorization}}"},
			moved: map[string]string{"authorization": "eyJhbGciOi.payload.sig"}},
		{name: "an env reference in a header argument is not a credential",
			in:   Server{Transport: TransportStdio, Args: []string{"mcp-remote", "--header", "Authorization: Bearer ${AUTH_TOKEN}"}},
			args: []string{"mcp-remote", "--header", "Authorization: Bearer ${AUTH_TOKEN}"}},
		{name: "a password that starts with $ is not a reference",
			in:    Server{Transport: TransportStdio, Args: []string{"redis://:$ecret-99@cache:6379", "--password", "$PASSWORD"}},
			args:  []string{"redis://:{{cairn-secret:password}}@cache:6379", "--password", "$PASSWORD"},
			moved: map[string]string{"password": "$ecret-99"}},
		{name: "a known token format anywhere",
			in:    Server{Transport: TransportStdio, Args: []string{"--config", "gh=ghp_abcdefghijklmnopqrstuvwxyz0123456789"}},
			args:  []string{"--config", "gh={{cairn-secret:token}}"},
			moved: map[string]string{"token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}},
		{name: "two passwords get two names",
			in:    Server{Transport: TransportStdio, Args: []string{"redis://:pw-one@a", "redis://:pw-two@b"}},
			args:  []string{"redis://:{{cairn-secret:password}}@a", "redis://:{{cairn-secret:password-2}}@b"},
			moved: map[string]string{"password": "pw-one", "password-2": "pw-two"}},
		{name: "a credential inside JSON is only warned about",
			in:   Server{Transport: TransportStdio, Args: []string{`{"apiKey": "abcdef123456"}`}},
			args: []string{`{"apiKey": "abcdef123456"}`}, warn: 1},
		{name: "ordinary arguments stay",
			in:   Server{Transport: TransportStdio, Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/tokens", "--session-timeout=30", "https://example.com/a?b=c"}},
			args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/tokens", "--session-timeout=30", "https://example.com/a?b=c"}},
		{name: "names that only look like tokens stay",
			in:   Server{Transport: TransportStdio, Args: []string{"@acme/sk-knowledge-graph-server", "--mode", "Basic instructions-for-everyone"}},
			args: []string{"@acme/sk-knowledge-graph-server", "--mode", "Basic instructions-for-everyone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.in.clone()
			mv, err := moveCredentials(&s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.args != nil && !slices.Equal(s.Args, tt.args) {
				t.Errorf("args\n got %q\nwant %q", s.Args, tt.args)
			}
			if s.URL != tt.url && tt.url != "" {
				t.Errorf("url %q, want %q", s.URL, tt.url)
			}
			for _, v := range s.Env {
				want, ok := tt.env[v.Name]
				if !ok {
					continue
				}
				if want == "" && !v.Secret || want != "" && (v.Secret || v.Value != want) {
					t.Errorf("env %s: %+v, want %q", v.Name, v, want)
				}
			}
			if len(mv.values) != len(tt.moved) {
				t.Errorf("moved %v, want %v", mv.values, tt.moved)
			}
			for k, v := range tt.moved {
				if mv.values[k] != v {
					t.Errorf("credential %s = %q, want %q (all: %v)", k, mv.values[k], v, mv.values)
				}
			}
			if len(mv.warnings) != tt.warn {
				t.Errorf("warnings %v, want %d", mv.warnings, tt.warn)
			}
			for _, w := range mv.warnings {
				if w.Code != apperr.MCPCredentialNotMoved || w.Params["where"] == "" {
					t.Errorf("warning %+v", w)
				}
			}
		})
	}

	// A placeholder may only name a credential the server has.
	s := Server{Transport: TransportStdio, Args: []string{"--key={{cairn-secret:stolen}}"}}
	if _, err := moveCredentials(&s, []string{"key"}); !apperr.Is(err, apperr.MCPServerInvalid) {
		t.Fatalf("unknown placeholder: %v", err)
	}
}

// fileHas reports whether the database (with its WAL) holds the bytes.
func fileHas(t *testing.T, h *harness, secret string) bool {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-journal"} {
		b, err := os.ReadFile(h.cfg.DB.Path + suffix)
		if err == nil && strings.Contains(string(b), secret) {
			return true
		}
	}
	return false
}

// TestCredentialsLeaveTheDatabase: credentials in arguments, the URL and env values are
// kept in the secret store, never in the database file; the view shows them masked, an
// export leaves them out unless asked, and the server still gets them: the process its
// real arguments, the HTTP server its real URL.
func TestCredentialsLeaveTheDatabase(t *testing.T) {
	h := newHarness(t, cold)
	ctx := context.Background()
	secrets := []string{"hunter2-database-pw", "k-api-key-0123456789", "url-token-abcdef987", "env-db-password-42", "hdr-secret-55555"}

	// A stdio server that writes its arguments to a file, then speaks MCP.
	argsFile := filepath.Join(t.TempDir(), "argv")
	stdio := rawServer(t, "pg", nil)
	stdio.Command, stdio.Args = "/bin/sh", []string{"-c", `printf '%s\n' "$@" > "$ARGS_FILE"; exec "$NODE" -e "$JS" '[]'`, "sh",
		"postgresql://admin:" + secrets[0] + "@db.example.com/app", "--api-key", secrets[1]}
	stdio.Env = []Var{{Name: "ARGS_FILE", Value: argsFile}, {Name: "NODE", Value: rawServer(t, "x", nil).Command},
		{Name: "JS", Value: rawServerJS}, {Name: "DB_URL", Value: "postgres://u:" + secrets[3] + "@h/db"}}
	v := h.save(stdio)
	if len(v.Credentials) != 3 || !v.Credentials[0].Set || v.Credentials[0].Last4 == "" {
		t.Fatalf("credentials %+v", v.Credentials)
	}
	// An HTTP server whose URL carries the token: it refuses a request without it.
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return goServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != secrets[2] {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { // before the manager closes its session: a failing test must not hang in Close
		srv.CloseClientConnections()
		srv.Close()
	})
	remote := h.save(Server{Name: "remote", URL: srv.URL + "/mcp?token=" + secrets[2], Enabled: true,
		Headers: []Var{{Name: "Authorization", Value: "Bearer " + secrets[4]}}})
	if !strings.Contains(remote.URL, "token={{cairn-secret:token}}") {
		t.Fatalf("url %s", remote.URL)
	}
	if h := remote.Headers[0]; !h.Secret || !h.Set || h.Value != "" {
		t.Fatalf("a plain Authorization header was kept plain: %+v", h)
	}

	if _, err := h.m.RefreshTools(ctxT(t, 30*time.Second), v.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(argsFile)
	if !strings.Contains(string(got), secrets[0]) || !strings.Contains(string(got), secrets[1]) {
		t.Fatalf("the process got %q", got)
	}
	if _, err := h.m.RefreshTools(ctxT(t, 30*time.Second), remote.ID); err != nil {
		t.Fatalf("remote with the token in its URL: %v", err)
	}

	if !fileHas(t, h, "db.example.com") {
		t.Fatal("fileHas does not see what the database holds")
	}
	snap, _ := h.m.Servers(ctx)
	ex, err := h.m.Export(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := h.m.Export(ctx, true)
	for _, s := range secrets {
		if fileHas(t, h, s) {
			t.Errorf("the database file holds %q", s)
		}
		if strings.Contains(ex.JSON, s) {
			t.Errorf("the export without secrets holds %q", s)
		}
		if !strings.Contains(full.JSON, s) {
			t.Errorf("the export with secrets lacks %q", s)
		}
		for _, sv := range snap.Servers {
			if strings.Contains(strings.Join(append(sv.Args, sv.URL), " "), s) {
				t.Errorf("the view shows %q", s)
			}
		}
	}
	if len(ex.WithheldSecrets) != 5 {
		t.Errorf("withheld %v", ex.WithheldSecrets)
	}

	// Saving the views back keeps the credentials; deleting the servers forgets them.
	again := h.save(v.Server)
	if len(again.Credentials) != 3 || !again.Credentials[2].Set {
		t.Fatalf("after saving the view back: %+v", again.Credentials)
	}
	// A URL whose password is a placeholder is still a valid URL.
	withUser := h.save(Server{Name: "with-user", URL: "https://bob:pw-secret-77@mcp.example.com/mcp"})
	if withUser.URL != "https://bob:{{cairn-secret:password}}@mcp.example.com/mcp" {
		t.Fatalf("url %s", withUser.URL)
	}
	if back := h.save(withUser.Server); len(back.Credentials) != 1 || !back.Credentials[0].Set {
		t.Fatalf("after saving the view back: %+v", back.Credentials)
	}
	if err := h.m.Delete(ctx, withUser.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{v.ID, remote.ID} {
		if err := h.m.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if len(h.secrets.m) != 0 {
		t.Fatalf("secrets left: %v", h.secrets.m)
	}
}

// TestImportMovesCredentials: an import moves credentials the same way, warns about what
// it cannot move, and importing Cairn's own export (with secrets) changes nothing.
func TestImportMovesCredentials(t *testing.T) {
	h := newHarness(t, cold)
	ctx := context.Background()
	rep, err := h.m.Import(ctx, []byte(`{"mcpServers": {
		"db": {"command": "npx", "args": ["-y", "mcp-postgres", "postgresql://me:import-pw-1@h/db"]},
		"blob": {"command": "node", "args": ["s.js", "{\"token\": \"abcdef123456\"}"]}
	}}`))
	if err != nil || rep.Imported != 2 {
		t.Fatalf("%+v %v", rep, err)
	}
	if len(rep.Entries[0].Warnings) != 0 || len(rep.Entries[1].Warnings) != 1 || rep.Entries[1].Warnings[0].Params["where"] != "args[2]" {
		t.Fatalf("warnings %+v / %+v", rep.Entries[0].Warnings, rep.Entries[1].Warnings)
	}
	if fileHas(t, h, "import-pw-1") {
		t.Fatal("the database file holds the imported password")
	}
	full, _ := h.m.Export(ctx, true)
	rep, err = h.m.Import(ctx, []byte(full.JSON))
	if err != nil || rep.Unchanged != 2 {
		t.Fatalf("re-import of the export: %+v %v", rep, err)
	}
}

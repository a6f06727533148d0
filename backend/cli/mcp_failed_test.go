package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPFailedServerIsListed: `cairn mcp tools --refresh` exits 1 when a server cannot
// start, naming it and the line that says why under the table; a later `cairn mcp list`
// (a new process that connects nothing) shows it failed with that reason, text and JSON.
func TestMCPFailedServerIsListed(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	t.Setenv("SHELL", "")
	dir := t.TempDir()
	script, err := filepath.Abs("../mcp/testdata/failing/no-token.sh")
	if err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(t.TempDir(), "starts")
	cfg := fmt.Sprintf(`{"mcpServers": {"sentry": {"command": "/bin/sh", "args": [%q], "env": {"CAIRN_TEST_STARTS": %q}}}}`, script, starts)
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "", "mcp", "import", file); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	const reason = "Error: No access token was provided."
	r := run(t, dir, "", "mcp", "tools", "--refresh")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "sentry: ") || !strings.Contains(r.stderr, reason) || !strings.HasPrefix(r.stdout, "SERVER") {
		t.Fatalf("tools --refresh: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(starts); strings.Count(string(b), "\n") != 1 {
		t.Fatalf("started %q, want once", b)
	}

	r = run(t, dir, "", "mcp", "list")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 3 || !strings.Contains(lines[1], "failed (last run)") ||
		!strings.HasPrefix(lines[2], "sentry: ") || !strings.Contains(lines[2], reason) {
		t.Fatalf("list: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = run(t, dir, "", "mcp", "list", "--json")
	var list []struct {
		Name   string
		Status struct {
			State    string
			Recorded bool
			Error    struct {
				Code   string
				Params map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("list --json: %v %q", err, r.stdout)
	}
	st := list[0].Status
	if st.State != "failed" || !st.Recorded || st.Error.Code != "mcp_server_exited" || !strings.HasPrefix(fmt.Sprint(st.Error.Params["stderr"]), reason) {
		t.Fatalf("status %+v", st)
	}
	if b, _ := os.ReadFile(starts); strings.Count(string(b), "\n") != 1 {
		t.Fatalf("listing started the server: %q", b)
	}
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-app/cairn/backend/apperr"
)

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, dataDir, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Deps: Deps{Locales: fstest.MapFS{
		"en/errors.json":    {Data: []byte(`{"setting_invalid":"{{key}}: {{reason}}","setting_unknown":"There is no setting called {{key}}.","setting_not_a_choice":"{{key}} must be one of: {{options}}.","secret_empty":"The secret is empty; nothing was saved.","secret_name_unknown":"There is no key called “{{name}}” to set or remove here. The keys you can set: {{known}}."}`)},
		"zh-CN/errors.json": {Data: []byte(`{"setting_invalid":"{{key}}：{{reason}}"}`)},
	}}}
	code := Run(context.Background(), append([]string{"--data-dir", dataDir}, args...), env)
	return result{code, out.String(), errb.String()}
}

func TestSettingsCommands(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string
		stream   string
	}{
		{"set valid", []string{"settings", "set", "general.theme", "dark"}, 0, "general.theme = dark", "out"},
		{"get back", []string{"settings", "get", "general.theme"}, 0, "dark", "out"},
		{"set invalid enum", []string{"settings", "set", "general.theme", "purple"}, 2, "general.theme must be one of: system, light, dark.", "err"},
		{"unknown key", []string{"settings", "get", "nope"}, 2, `There is no setting called "nope".`, "err"},
		{"list json", []string{"settings", "list", "--json"}, 0, `"general.theme": "dark"`, "out"},
		{"bad subcommand", []string{"settings", "frob"}, 2, "unknown settings subcommand", "err"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command", "err"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, dir, "", tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d; stderr=%s", r.code, tt.code, r.stderr)
			}
			got := r.stdout
			if tt.stream == "err" {
				got = r.stderr
			}
			if !strings.Contains(got, tt.contains) {
				t.Fatalf("%s = %q, want it to contain %q", tt.stream, got, tt.contains)
			}
		})
	}
}

func TestSecretsFromStdinNeverArgv(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	const key = "tvly-0123456789abcdef"
	if r := run(t, dir, key+"\n", "secrets", "set", "websearch.tavily"); r.code != 0 {
		t.Fatalf("set: %+v", r)
	}
	r := run(t, dir, "", "secrets", "list", "--json")
	if r.code != 0 || strings.Contains(r.stdout, key) {
		t.Fatalf("list leaked or failed: %+v", r)
	}
	var snap struct {
		Backend string
		Secrets []struct {
			Name  string
			Set   bool
			Last4 string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &snap); err != nil {
		t.Fatal(err)
	}
	ok := false
	for _, s := range snap.Secrets {
		if s.Name == "websearch.tavily" && s.Set && s.Last4 == "cdef" {
			ok = true
		}
	}
	if !ok || snap.Backend != "file" {
		t.Fatalf("snapshot %+v", snap)
	}
	// A value given as an argument is refused, not stored.
	if r := run(t, dir, "", "secrets", "set", "websearch.brave", "sk-in-argv"); r.code != 2 {
		t.Fatalf("argv secret accepted: %+v", r)
	}
	if r := run(t, dir, "", "secrets", "set", "websearch.brave"); r.code == 0 || !strings.Contains(r.stderr, "empty") {
		t.Fatalf("empty stdin: %+v", r)
	}
	db, _ := os.ReadFile(filepath.Join(dir, "cairn.db"))
	wal, _ := os.ReadFile(filepath.Join(dir, "cairn.db-wal"))
	if bytes.Contains(db, []byte(key)) || bytes.Contains(wal, []byte(key)) {
		t.Fatal("secret found in the database")
	}
}

func TestVersionAndDoctorJSON(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	r := run(t, dir, "", "version", "--json")
	var v map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil || v["version"] == "" {
		t.Fatalf("version: %+v", r)
	}
	r = run(t, dir, "", "doctor", "--json")
	var d struct {
		OK      bool
		Keyring string
		Checks  []struct {
			Name   string
			OK     bool
			Detail string
		}
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &d) != nil || !d.OK || d.Keyring != "file" {
		t.Fatalf("doctor: %+v", r)
	}
	found := false
	for _, c := range d.Checks {
		if c.Name == "keyring" && strings.Contains(c.Detail, "not the system keyring") {
			found = true
		}
	}
	if !found {
		t.Fatalf("doctor does not say keys are in a file: %+v", d.Checks)
	}

	// A stored value that cannot be read is named (its default applies); still usable.
	checks := func() map[string]string {
		t.Helper()
		r := run(t, dir, "", "doctor", "--json")
		d.Checks = nil
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &d) != nil || !d.OK {
			t.Fatalf("doctor: %+v", r)
		}
		out := map[string]string{}
		for _, c := range d.Checks {
			out[c.Name] = fmt.Sprint(c.OK, " ", c.Detail)
		}
		return out
	}
	if got := checks()["settings"]; !strings.HasPrefix(got, "true ") {
		t.Fatalf("settings check on a fresh directory: %q", got)
	}
	s := openServices(t, dir)
	if _, err := s.DB.Exec("INSERT INTO settings(key, value, updated_at) VALUES ('general.theme', '{broken', 0)"); err != nil {
		t.Fatal(err)
	}
	if got := checks()["settings"]; !strings.HasPrefix(got, "false ") || !strings.Contains(got, "general.theme") {
		t.Fatalf("settings check with a broken value: %q", got)
	}

	// A fallback chain stored with a provider Cairn does not have (written before the
	// setting was checked) is named; searches skip it, the installation stays usable.
	if got := checks()["web_search"]; !strings.HasPrefix(got, "true ") {
		t.Fatalf("web_search check on a fresh directory: %q", got)
	}
	if _, err := s.DB.Exec(`INSERT INTO settings(key, value, updated_at) VALUES ('websearch.fallback', '"brave googel"', 0)`); err != nil {
		t.Fatal(err)
	}
	if got := checks()["web_search"]; !strings.HasPrefix(got, "false ") || !strings.Contains(got, "skip them: googel (") {
		t.Fatalf("web_search check with an unknown fallback: %q", got)
	}
}

func TestDoctorFailsOnUnusableDataDir(t *testing.T) {
	dir := t.TempDir()
	// A newer database makes the installation unusable: clear error, exit 1.
	r := run(t, dir, "", "doctor")
	if r.code != 0 {
		t.Fatalf("fresh doctor: %+v", r)
	}
	if err := os.WriteFile(filepath.Join(dir, "cairn.db"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "cairn.db-wal"))
	os.Remove(filepath.Join(dir, "cairn.db-shm"))
	r = run(t, dir, "", "doctor")
	if r.code != 1 || r.stderr == "" {
		t.Fatalf("doctor on garbage db: %+v", r)
	}
}

func TestGlobalFlagsAnywhere(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"serve", "--data-dir", "/x"}, []string{"--data-dir", "/x", "serve"}},
		{[]string{"--data-dir=/x", "doctor"}, []string{"--data-dir=/x", "doctor"}},
		{[]string{"chat", "--", "--data-dir", "is text"}, []string{"chat", "--", "--data-dir", "is text"}},
		{[]string{"settings", "get", "k", "-data-dir=/y"}, []string{"-data-dir=/y", "settings", "get", "k"}},
	}
	for _, tt := range tests {
		if got := strings.Join(hoistGlobalFlags(tt.in), " "); got != strings.Join(tt.want, " ") {
			t.Errorf("hoist(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	dir := t.TempDir()
	if r := run(t, t.TempDir(), "", "settings", "set", "general.theme", "light", "--data-dir", dir); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if r := run(t, dir, "", "settings", "get", "general.theme"); strings.TrimSpace(r.stdout) != "light" {
		t.Fatalf("value not stored in the --data-dir given after the command: %+v", r)
	}
}

// TestWindowAndFlagErrors: with no command the window opens on the data directory the
// global flags chose, and every bad flag, global or a command's, is a usage error (exit 2)
// that names the flag, with no window and no "something went wrong".
func TestWindowAndFlagErrors(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	tests := []struct {
		name      string
		args      []string
		window    bool // Deps.Window is set
		code      int
		opened    string // the data directory the window got; "" when it must not open
		errHas    string
		errHasNot string
	}{
		{"window on --data-dir", []string{"--data-dir", dir}, true, 7, dir, "", ""},
		{"window, flag after nothing else", []string{"--data-dir=" + dir}, true, 7, dir, "", ""},
		{"no window built: usage", []string{"--data-dir", dir}, false, 2, "", "Usage: cairn", ""},
		{"unknown global flag", []string{"--verbose"}, true, 2, "", "flag provided but not defined: -verbose", ""},
		{"data-dir without a value", []string{"--data-dir"}, true, 2, "", "flag needs an argument: -data-dir", ""},
		{"help", []string{"-h"}, true, 0, "", "Usage: cairn", ""},
		{"command's unknown flag", []string{"--data-dir", dir, "settings", "list", "--bogus"}, true, 2, "", "flag provided but not defined: -bogus", "cairn:"},
		{"serve's unknown flag", []string{"--data-dir", dir, "serve", "--port", "1"}, true, 2, "", "flag provided but not defined: -port", "cairn:"},
		{"version's help", []string{"version", "-h"}, true, 0, "", "-json", "cairn:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			opened := ""
			env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
			if tt.window {
				env.Deps.Window = func(_ context.Context, e *Env) int {
					opened = e.DataDir
					return 7
				}
			}
			code := Run(context.Background(), tt.args, env)
			if code != tt.code || opened != tt.opened {
				t.Fatalf("exit %d, window on %q; want %d, %q; stderr=%s", code, opened, tt.code, tt.opened, errb.String())
			}
			if !strings.Contains(errb.String(), tt.errHas) {
				t.Fatalf("stderr = %q, want it to contain %q", errb.String(), tt.errHas)
			}
			if tt.errHasNot != "" && strings.Contains(errb.String(), tt.errHasNot) {
				t.Fatalf("stderr = %q, must not contain %q", errb.String(), tt.errHasNot)
			}
		})
	}
}

// TestSecretsCommandKeepsToItsKeys: `cairn secrets` sets, deletes and lists only the keys
// Settings → Web search has; a provider's key or MCP's credentials are refused before stdin
// is stored, and an oversized value is refused whole, never cut.
func TestSecretsCommandKeepsToItsKeys(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	dir := t.TempDir()
	const stray = "sk-must-not-be-stored-1234"
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		errHas string
	}{
		{"provider key", stray, []string{"secrets", "set", "provider.p1.apiKey"}, 2, "There is no key called “provider.p1.apiKey”"},
		{"mcp credential", stray, []string{"secrets", "set", "mcp.srv.oauth.token"}, 2, "websearch.tavily"},
		{"typo", stray, []string{"secrets", "set", "websearch.tavilly"}, 2, "There is no key called “websearch.tavilly”"},
		{"delete mcp credential", "", []string{"secrets", "delete", "mcp.srv.oauth.token"}, 2, "There is no key called"},
		{"oversized", strings.Repeat("k", maxSecretBytes+1), []string{"secrets", "set", "websearch.tavily"}, 2, "longer than 64 KiB"},
		{"empty", "\n", []string{"secrets", "set", "websearch.tavily"}, 2, "The secret is empty"},
		{"exactly 64 KiB, newline after", strings.Repeat("k", maxSecretBytes) + "\r\n", []string{"secrets", "set", "websearch.tavily"}, 0, ""},
		{"known key", "tvly-0123456789\n", []string{"secrets", "set", "websearch.tavily"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, dir, tt.stdin, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.errHas) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tt.code, tt.errHas)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(dir, "secrets.json")); err != nil || bytes.Contains(b, []byte(stray)) || !bytes.Contains(b, []byte("tvly-0123456789")) {
		t.Fatalf("secrets file: err %v, holds the refused value or lacks the known one: %s", err, b)
	}
	if r := run(t, dir, "sk-provider-key-0001", "provider", "add", "p1", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--api-key-stdin"); r.code != 0 {
		t.Fatalf("provider add: %+v", r)
	}
	for _, args := range [][]string{{"secrets", "list"}, {"secrets", "list", "--json"}} {
		r := run(t, dir, "", args...)
		if r.code != 0 || strings.Contains(r.stdout, "provider.") || strings.Contains(r.stdout, "0001") || !strings.Contains(r.stdout, "websearch.tavily") {
			t.Fatalf("%v lists a provider's key or misses its own: %+v", args, r)
		}
	}
}

// TestErrorPointsToTheCommand: an error whose way out is a Settings section names the
// command that does the same in a terminal (or only the section when there is none).
func TestErrorPointsToTheCommand(t *testing.T) {
	tests := []struct{ section, want string }{
		{"providers", "(see Settings → providers, or `cairn provider`)"},
		{"mcp", "(see Settings → mcp, or `cairn mcp`)"},
		{"about", "(see Settings → about, or `cairn doctor`)"},
		{"permissions", "(see Settings → permissions)\n"},
	}
	for _, tt := range tests {
		var errb bytes.Buffer
		env := &Env{Stderr: &errb}
		code := env.report(apperr.New(apperr.Internal, "boom").WithAction("open-settings", tt.section))
		if code != 1 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want %q", tt.section, code, errb.String(), tt.want)
		}
	}
	var errb bytes.Buffer
	env := &Env{Stderr: &errb}
	env.report(apperr.New(apperr.FetchBlockedAddress, "fetch http://nas.home/ refused").WithParam("host", "nas.home"))
	if want := "(see Settings → web-search, or `cairn settings set webfetch.allowedHosts HOST`)"; !strings.Contains(errb.String(), want) {
		t.Errorf("refused private host: stderr %q; want %q", errb.String(), want)
	}
}

// TestHugeInputQuotedShort: an argument over 64 KiB is refused before anything runs,
// and rejected values are quoted back by their beginning and length, never whole.
func TestHugeInputQuotedShort(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"argv entry over the limit", []string{"chat", strings.Repeat("y", 70000)}, `(70,000 characters): an argument can hold at most 64 KiB`},
		{"unknown setting", []string{"settings", "get", strings.Repeat("k", 60000)}, `There is no setting called "kkkkkkkkkkkkkkkkkkkkkkkk…" (60,000 characters).`},
		{"bad boolean", []string{"settings", "set", "chat.sendOnEnter", strings.Repeat("b", 60000)}, `got "bbbbbbbbbbbbbbbbbbbbbbbb…" (60,000 characters)`},
		{"unknown subcommand", []string{"mcp", strings.Repeat("m", 60000)}, `(60,000 characters)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, dir, "", tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %.400q; want it to contain %q", r.code, r.stderr, tt.want)
			}
			if len(r.stderr) > 4000 {
				t.Fatalf("%d bytes of error: the value was echoed", len(r.stderr))
			}
		})
	}
}

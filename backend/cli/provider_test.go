package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/service"
)

func TestProviderCommandsKeepTheKeyOutOfArgvAndTheDB(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	const key = "sk-cli-secret-0123456789-wxyz"
	srv := llmtest.Start(t, llmtest.WithAPIKey(key), llmtest.WithModels(llmtest.Model{ID: "m-big", ContextLength: 200000}, llmtest.Model{ID: "m-extra", ContextLength: 200000, SupportedParameters: []string{"tools"}}))
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "OK"} })

	// There is no flag that takes a key.
	if r := run(t, dir, "", "provider", "add", "x", "--base-url", srv.URL, "--api-key", key); r.code != 2 {
		t.Fatalf("--api-key accepted: %+v", r)
	}
	r := run(t, dir, key+"\n", "provider", "add", "Fake", "--base-url", srv.URL, "--model", "m-small", "--model", "m-big", "--context-window", "8192", "--api-key-stdin")
	if r.code != 0 || !strings.Contains(r.stdout, "added Fake") || !strings.Contains(r.stdout, "key stored in file") || strings.Contains(r.stdout+r.stderr, key) {
		t.Fatalf("add: %+v", r)
	}
	if r := run(t, dir, "", "provider", "add", "fake", "--base-url", srv.URL, "--model", "m"); r.code != 1 || !strings.Contains(r.stderr, "exists") {
		t.Fatalf("duplicate add: %+v", r)
	}
	if r := run(t, dir, "", "provider", "add", "Empty", "--base-url", srv.URL, "--api-key-stdin"); r.code != 2 {
		t.Fatalf("empty stdin key: %+v", r)
	}

	r = run(t, dir, "", "provider", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "Fake") || !strings.Contains(r.stdout, "set (…wxyz)") || strings.Contains(r.stdout, key) {
		t.Fatalf("list: %+v", r)
	}
	r = run(t, dir, "", "provider", "list", "--json")
	var list []struct {
		Name, DefaultModel string
		KeySet             bool
		Models             []struct {
			ID            string
			ContextWindow int
		}
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || strings.Contains(r.stdout, key) {
		t.Fatalf("list --json: %+v", r)
	}
	if len(list) != 1 || !list[0].KeySet || list[0].DefaultModel != "m-small" || len(list[0].Models) != 2 || list[0].Models[0].ContextWindow != 8192 {
		t.Fatalf("list --json = %+v", list)
	}

	r = run(t, dir, "", "provider", "models", "fake")
	// Fetched models join the list; the context window the user set is kept.
	if r.code != 0 || !strings.Contains(r.stdout, "m-extra  200000") || !strings.Contains(r.stdout, "m-big    8192") {
		t.Fatalf("models: %+v", r)
	}
	r = run(t, dir, "", "provider", "test", "Fake")
	if r.code != 0 || !strings.Contains(r.stdout, "ok: m-small") {
		t.Fatalf("test: %+v", r)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("the key read from stdin did not reach the provider: %q", got)
	}

	// The key is in the secret store's file and in no other file of the data directory.
	scan := func() {
		t.Helper()
		entries, _ := os.ReadDir(dir)
		found := false
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			if bytes.Contains(b, []byte(key)) {
				if e.Name() != secrets.FileName {
					t.Fatalf("%s contains the API key", e.Name())
				}
				found = true
			}
		}
		if !found {
			t.Fatal("the key is not in the secret store")
		}
	}
	scan()

	if r := run(t, dir, "", "provider", "remove", "fake"); r.code != 0 {
		t.Fatalf("remove: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, secrets.FileName)); bytes.Contains(b, []byte(key)) {
		t.Fatal("key left in the secret store after remove")
	}
	if r := run(t, dir, "", "provider", "remove", "fake"); r.code != 1 {
		t.Fatalf("remove twice: %+v", r)
	}
	if r := run(t, dir, "", "provider", "list"); !strings.Contains(r.stdout, "no providers yet") {
		t.Fatalf("empty list: %+v", r)
	}
	if r := run(t, dir, "", "provider", "presets", "--json"); r.code != 0 || !strings.Contains(r.stdout, "http://127.0.0.1:11434/v1") {
		t.Fatalf("presets: %+v", r)
	}
	if r := run(t, dir, "", "provider", "frob"); r.code != 2 {
		t.Fatalf("unknown subcommand: %+v", r)
	}
}

// TestProviderAddRefusesBadPortAndKey: `cairn provider add` refuses a port outside
// 1–65535 and a key with a control character, in the locale's words (exit 2), and
// stores nothing; a key stored with a line break in it is reported as that key by
// `provider test` and `chat`, not as a host that cannot be reached.
func TestProviderAddRefusesBadPortAndKey(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	dir := t.TempDir()
	srv := llmtest.Start(t)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "OK"} })
	locales := os.DirFS(filepath.Join("..", "..", "frontend", "src", "i18n", "locales"))
	runL := func(stdin string, args ...string) result {
		var out, errb bytes.Buffer
		env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Deps: Deps{Locales: locales}}
		code := Run(t.Context(), append([]string{"--data-dir", dir}, args...), env)
		return result{code, out.String(), errb.String()}
	}
	r := runL("", "provider", "add", "far", "--base-url", "http://127.0.0.1:70000/v1", "--model", "m")
	if r.code != 2 || !strings.Contains(r.stderr, "The port 70000 in the base URL is not between 1 and 65535.") {
		t.Fatalf("port: %+v", r)
	}
	r = runL("sk-abc\x1b[2Kdef\n", "provider", "add", "pasted", "--base-url", srv.URL, "--model", "m", "--api-key-stdin")
	if r.code != 2 || !strings.Contains(r.stderr, "invisible control character (U+001B, character 7)") || strings.Contains(r.stderr, "\x1b") {
		t.Fatalf("key: %+v", r)
	}
	if r := runL("", "provider", "list", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("stored anyway: %+v", r)
	}

	if r := runL("sk-good\n", "provider", "add", "local", "--base-url", srv.URL, "--model", "m", "--api-key-stdin"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	s, err := service.Open(t.Context(), service.Options{DataDir: dir, SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Providers.Get(t.Context(), "local")
	if err == nil {
		err = s.Secrets.Set(t.Context(), llm.SecretName(p.ID), "sk-abc\ndef") // as an older Cairn stored it
	}
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"provider", "test", "local"}, {"chat", "--provider", "local", "hi"}} {
		r := runL("", args...)
		if r.code == 0 || !strings.Contains(r.stderr, "The stored API key of local contains an invisible control character (U+000A, character 7)") ||
			strings.Contains(r.stderr, "Cannot reach") {
			t.Fatalf("%v: %+v", args, r)
		}
	}
}

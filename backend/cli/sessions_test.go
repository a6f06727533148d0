package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/transfer"
)

// TestSessionsExportImport: a conversation made with `cairn chat` exports as Markdown
// and JSON (to stdout and to a file), all of them as a zip, and the JSON imports back as
// a second conversation; a malformed file is refused with its reason; both through the
// owner (a running serve) and without one.
func TestSessionsExportImport(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	bin := buildCairn(t)
	for _, withOwner := range []bool{false, true} {
		name := "alone"
		if withOwner {
			name = "through serve"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fake := llmtest.Start(t)
			fake.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "the answer is 42"} })
			if r := runBin(t, bin, dir, "sk-fake-key-0123456789\n", "provider", "add", "fake", "--base-url", fake.URL, "--model", "m", "--api-key-stdin"); r.code != 0 {
				t.Fatalf("provider add: %+v", r)
			}
			r := runBin(t, bin, dir, "", "chat", "--provider", "fake", "what is the answer")
			m := sessionLine.FindStringSubmatch(r.stderr)
			if r.code != 0 || m == nil {
				t.Fatalf("chat: %+v", r)
			}
			if withOwner {
				startServeChild(t, bin, dir)
			}
			id := m[1]
			md := runBin(t, bin, dir, "", "sessions", "export", id, "--format", "md")
			if md.code != 0 || !strings.Contains(md.stdout, "## You ·") || !strings.Contains(md.stdout, "the answer is 42") {
				t.Fatalf("md: %+v", md)
			}
			file := filepath.Join(t.TempDir(), "c.json")
			if r := runBin(t, bin, dir, "", "sessions", "export", id, "--format", "json", "-o", file); r.code != 0 {
				t.Fatalf("json: %+v", r)
			}
			zip := filepath.Join(t.TempDir(), "all.zip")
			if r := runBin(t, bin, dir, "", "sessions", "export", "--all", "-o", zip); r.code != 0 {
				t.Fatalf("zip: %+v", r)
			}
			if b, _ := os.ReadFile(zip); !strings.HasPrefix(string(b), "PK") {
				t.Fatal("the zip is no zip")
			}
			imp := runBin(t, bin, dir, "", "sessions", "import", file, "--json")
			var rep struct {
				Imported int `json:"imported"`
				Items    []struct {
					SessionID string `json:"sessionId"`
				} `json:"items"`
			}
			if imp.code != 0 || json.Unmarshal([]byte(imp.stdout), &rep) != nil || rep.Imported != 1 || rep.Items[0].SessionID == id {
				t.Fatalf("import: %+v", imp)
			}
			again := runBin(t, bin, dir, "", "sessions", "export", rep.Items[0].SessionID, "--format", "md")
			if again.stdout != md.stdout {
				t.Fatalf("the imported copy reads differently:\n%s\n---\n%s", md.stdout, again.stdout)
			}
			// Backup (through the owner when one runs), then restore into a new directory.
			backup := filepath.Join(t.TempDir(), "cairn.zip")
			if r := runBin(t, bin, dir, "correct horse\n", "backup", backup, "--with-keys"); r.code != 0 || !strings.Contains(r.stdout, "with keys (encrypted)") {
				t.Fatalf("backup: %+v", r)
			}
			fresh := filepath.Join(t.TempDir(), "restored")
			if r := runBin(t, bin, fresh, "wrong\n", "restore", backup); r.code == 0 || !strings.Contains(r.stderr, "passphrase") {
				t.Fatalf("restore with a wrong passphrase: %+v", r)
			}
			if r := runBin(t, bin, fresh, "correct horse\n", "restore", backup); r.code != 0 || !strings.Contains(r.stdout, "1 keys") {
				t.Fatalf("restore: %+v", r)
			}
			if r := runBin(t, bin, fresh, "", "sessions", "export", id, "--format", "md"); r.stdout != md.stdout {
				t.Fatalf("the restored conversation: %+v", r)
			}
			if b, err := os.ReadFile(filepath.Join(fresh, "secrets.json")); err != nil || !strings.Contains(string(b), "sk-fake-key-0123456789") {
				t.Fatalf("the restored key: %s %v", b, err)
			}
			if b, _ := os.ReadFile(backup); strings.Contains(string(b), "sk-fake-key") {
				t.Fatal("the backup holds the key in the clear")
			}
			if withOwner {
				if r := runBin(t, bin, dir, "correct horse\n", "restore", backup); r.code == 0 || !strings.Contains(r.stderr, "cairn serve") {
					t.Fatalf("restore over a running serve: %+v", r)
				}
			}
			bad := filepath.Join(t.TempDir(), "bad.json")
			os.WriteFile(bad, []byte("[{\"title\": 1"), 0o600)
			if r := runBin(t, bin, dir, "", "sessions", "import", bad); r.code == 0 || !strings.Contains(r.stderr, "bad.json") {
				t.Fatalf("malformed: %+v", r)
			}
		})
	}
}

// TestClaimOwnerAppliesStagedRestore: a restore staged from a window is swapped in when
// the next owner claims the directory, which it then holds as usual.
func TestClaimOwnerAppliesStagedRestore(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	a, b := t.TempDir(), t.TempDir()
	if r := run(t, a, "", "settings", "set", "general.theme", "dark"); r.code != 0 {
		t.Fatalf("set: %+v", r)
	}
	file := filepath.Join(t.TempDir(), "b.zip")
	if r := run(t, a, "", "backup", file); r.code != 0 {
		t.Fatalf("backup: %+v", r)
	}
	if r := run(t, b, "", "settings", "get", "general.theme"); strings.TrimSpace(r.stdout) == "dark" {
		t.Fatal("b is dark before the restore")
	}
	data, _ := os.ReadFile(file)
	if _, err := transfer.StageRestore(context.Background(), "b.zip", data, b); err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	o, err := ClaimOwner(context.Background(), &Env{DataDir: b, Stderr: &errb}, owner.KindServe)
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := owner.ReadInfo(b); !ok || in.PID != os.Getpid() {
		t.Fatalf("owner after the restore: %+v", in)
	}
	o.Close()
	if !strings.Contains(errb.String(), "restored the backup") || transfer.HasPendingRestore(b) {
		t.Fatalf("stderr %q", errb.String())
	}
	if r := run(t, b, "", "settings", "get", "general.theme"); strings.TrimSpace(r.stdout) != "dark" {
		t.Fatalf("theme after the restore: %+v", r)
	}
}

package confine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// escapeEnv is one level's sandbox with a workspace, a secret outside it and one in the
// data directory.
type escapeEnv struct {
	s       *Sandbox
	ws      string // the workspace
	out     string // a folder outside it, holding secret.txt
	dataSec string // a file in the data directory
	pol     Policy
}

const secret = "TOPSECRET-7f3a"

func newEscapeEnv(t *testing.T, lv Level) escapeEnv {
	t.Helper()
	s := newSandbox(t, lv)
	e := escapeEnv{s: s, ws: filepath.Join(t.TempDir(), "ws"), out: t.TempDir()}
	mustWrite(t, filepath.Join(e.ws, "hello.txt"), "hello from the workspace\n")
	mustWrite(t, filepath.Join(e.out, "secret.txt"), secret)
	e.dataSec = filepath.Join(s.dataDir, "cairn.db")
	mustWrite(t, e.dataSec, secret)
	e.ws, e.out, e.dataSec = evalOr(e.ws), evalOr(e.out), evalOr(e.dataSec)
	e.pol = Policy{Workspace: e.ws, Env: map[string]string{"OUT": e.out, "DATA": e.dataSec, "CAIRN_PID": strconv.Itoa(os.Getpid())}}
	return e
}

// denied asserts the run failed and leaked nothing; want, when set, is a word of the
// error it must have met.
func denied(t *testing.T, r result, want ...string) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatalf("the secret leaked: %+v", r)
	}
	if r.code == 0 {
		t.Fatalf("the run succeeded: %+v", r)
	}
	for _, w := range want {
		if strings.Contains(strings.ToLower(r.stderr+r.stdout), strings.ToLower(w)) {
			return
		}
	}
	if len(want) > 0 {
		t.Fatalf("the run failed, but not with %q: %+v", want, r)
	}
}

func ok(t *testing.T, r result, want string) {
	t.Helper()
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("want exit 0 and %q, got %+v", want, r)
	}
}

// TestEscapeFiles: reads and writes outside the workspace fail, however the path is
// spelled; the same tools work inside.
func TestEscapeFiles(t *testing.T) {
	for _, lv := range levels(t) {
		t.Run(string(lv), func(t *testing.T) {
			e := newEscapeEnv(t, lv)
			ok(t, run(t, e.s, e.pol, "cat hello.txt"), "hello from the workspace")
			ok(t, run(t, e.s, e.pol, "echo made > new.txt && cat new.txt"), "made")
			noExposure := []string{"permission denied", "no such file", "not permitted", "nonexistent"}
			for name, script := range map[string]string{
				"outside file":    `cat "$OUT/secret.txt"`,
				"data directory":  `cat "$DATA"`,
				"etc shadow":      `cat /etc/shadow; exit 1`,
				"dot dot":         `cat "../../$(basename "$(dirname "$OUT")")/$(basename "$OUT")/secret.txt"`,
				"symlink":         `ln -s "$OUT/secret.txt" link && cat link`,
				"hardlink":        `ln "$OUT/secret.txt" hard && cat hard`,
				"proc self root":  `cat "/proc/self/root$OUT/secret.txt"`,
				"proc cairn root": `cat "/proc/$CAIRN_PID/root$OUT/secret.txt"`,
				"proc cairn cwd":  `ls "/proc/$CAIRN_PID/cwd/"`,
				"proc cairn env":  `cat "/proc/$CAIRN_PID/environ"`,
				"dev fd":          `exec 9<"$OUT/secret.txt"; cat /dev/fd/9`,
				"ssh keys":        `ls "$(getent passwd $(id -u) | cut -d: -f6)/.ssh" 2>&1 | grep -v "No such" && exit 0; exit 1`,
			} {
				t.Run(name, func(t *testing.T) { denied(t, run(t, e.s, e.pol, script)) })
			}
			t.Run("write outside", func(t *testing.T) {
				denied(t, run(t, e.s, e.pol, `echo x > "$OUT/planted"`), noExposure...)
				if _, err := os.Stat(filepath.Join(e.out, "planted")); err == nil {
					t.Fatal("a file was planted outside the workspace")
				}
			})
			t.Run("symlink write", func(t *testing.T) {
				denied(t, run(t, e.s, e.pol, `ln -s "$OUT/via-link" l2 && echo x > l2`))
				if _, err := os.Stat(filepath.Join(e.out, "via-link")); err == nil {
					t.Fatal("a write through a symlink reached outside")
				}
			})
			// Global kernel settings and the root folder: a command run by a root Cairn is
			// root in its user namespace, so only the sandbox keeps it from these (a
			// core_pattern runs a program as the host's root). Opened for appending only, or
			// made where a failure leaves nothing outside a strong sandbox.
			t.Cleanup(func() { _ = os.Remove("/cairn-sbx-planted") })
			for name, script := range map[string]string{
				"kernel settings": `exec 3>>/proc/sys/kernel/core_pattern`,
				"sysrq":           `exec 3>>/proc/sysrq-trigger`,
				"root folder":     `mkdir /cairn-sbx-planted`,
				"list root":       `ls /`,
			} {
				t.Run(name, func(t *testing.T) { denied(t, run(t, e.s, e.pol, script)) })
			}
			t.Run("inherited fd", func(t *testing.T) { inheritedFD(t, lv, e.dataSec) })
			t.Run("private tmp", func(t *testing.T) {
				ok(t, run(t, e.s, e.pol, `echo t > "$TMPDIR/x" && cat "$TMPDIR/x" && echo h > "$HOME/.h" && cat "$HOME/.h"`), "h")
			})
		})
	}
}

// TestEscapeReadOnlyFolder: an allowed read-only folder is readable and not writable.
func TestEscapeReadOnlyFolder(t *testing.T) {
	for _, lv := range levels(t) {
		t.Run(string(lv), func(t *testing.T) {
			e := newEscapeEnv(t, lv)
			ro := evalOr(t.TempDir())
			mustWrite(t, filepath.Join(ro, "doc.txt"), "reference\n")
			e.pol.ReadOnly = []string{ro}
			e.pol.Env["RO"] = ro
			ok(t, run(t, e.s, e.pol, `cat "$RO/doc.txt"`), "reference")
			denied(t, run(t, e.s, e.pol, `echo x >> "$RO/doc.txt"`), "read-only", "permission denied")
			denied(t, run(t, e.s, e.pol, `touch "$RO/new"`), "read-only", "permission denied")
			if b, _ := os.ReadFile(filepath.Join(ro, "doc.txt")); string(b) != "reference\n" {
				t.Fatalf("the read-only file changed: %q", b)
			}
		})
	}
}

// TestEscapeProtected: the workspace's protected paths stay read-only for commands at
// the strong level; the reduced level says it cannot hold them.
func TestEscapeProtected(t *testing.T) {
	for _, lv := range levels(t) {
		t.Run(string(lv), func(t *testing.T) {
			e := newEscapeEnv(t, lv)
			for _, p := range []string{".git/hooks/pre-commit.sample", ".git/config", ".vscode/tasks.json", ".bashrc"} {
				mustWrite(t, filepath.Join(e.ws, p), "original\n")
			}
			if lv == Reduced {
				if st := e.s.Status(context.Background()); st.Writes.Holds || !strings.Contains(st.Writes.Detail, "protected") {
					t.Fatalf("the reduced level does not say protected paths are writable: %+v", st.Writes)
				}
				return
			}
			for _, script := range []string{
				`echo evil > .git/hooks/pre-commit`, `echo evil >> .git/config`, `echo evil > .vscode/tasks.json`,
				`echo evil >> .bashrc`, `rm -rf .git/hooks`, `mv .git/config .git/config.old`,
			} {
				denied(t, run(t, e.s, e.pol, script), "read-only", "busy", "permission denied")
			}
			if _, err := os.Stat(filepath.Join(e.ws, ".git/hooks/pre-commit")); err == nil {
				t.Fatal("a git hook was planted")
			}
			ok(t, run(t, e.s, e.pol, `cat .git/config && echo fine > .git/HEAD && cat .git/HEAD`), "fine")
			e.pol.Writable = []string{".vscode"}
			ok(t, run(t, e.s, e.pol, `echo allowed > .vscode/tasks.json && cat .vscode/tasks.json`), "allowed")
		})
	}
}

// TestHostileWorkspacePaths: names with quotes, newlines and leading dashes are paths,
// never options or script.
func TestHostileWorkspacePaths(t *testing.T) {
	for _, lv := range levels(t) {
		t.Run(string(lv), func(t *testing.T) {
			s := newSandbox(t, lv)
			base := t.TempDir()
			for _, name := range []string{"--bind", "-x \"q'uote", "new\nline --bind / /", "$(touch pwned)`id`"} {
				ws := filepath.Join(base, name)
				if err := os.MkdirAll(ws, 0o755); err != nil {
					t.Fatal(err)
				}
				pol := Policy{Workspace: ws}
				r := run(t, s, pol, `echo in > f.txt && cat f.txt && cat /etc/shadow 2>/dev/null; ls / >/dev/null 2>&1 && echo ROOT-LISTED; true`)
				ok(t, r, "in")
				if strings.Contains(r.stdout, "ROOT-LISTED") || strings.Contains(r.stdout, "root:") {
					t.Fatalf("workspace %q widened the sandbox: %+v", name, r)
				}
				if b, err := os.ReadFile(filepath.Join(ws, "f.txt")); err != nil || string(b) != "in\n" {
					t.Fatalf("workspace %q: %q %v", name, b, err)
				}
				if _, err := os.Stat(filepath.Join(base, "pwned")); err == nil {
					t.Fatalf("workspace %q ran its name", name)
				}
			}
		})
	}
}

// TestEscapeProtectedMissing: at the strong level a protected path that does not exist
// yet cannot be created either (an .envrc, an editor task, a hook in a repository without
// a hooks folder), and nothing of the placeholders is left in the workspace after.
func TestEscapeProtectedMissing(t *testing.T) {
	if !slices.Contains(levels(t), Strong) {
		// Only the strong level holds protected paths for commands; the reduced one says so.
		if st := newSandbox(t, "").Status(context.Background()); st.Writes.Holds {
			t.Fatalf("the %s level claims to hold protected paths: %+v", st.Level, st.Writes)
		}
		return
	}
	e := newEscapeEnv(t, Strong)
	if err := os.Mkdir(filepath.Join(e.ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{`echo evil > .envrc`, `echo evil > .bashrc`, `mkdir -p .vscode && echo x > .vscode/tasks.json`,
		`echo x > .vscode/tasks.json`, `mkdir -p .git/hooks; echo x > .git/hooks/pre-commit`, `echo x > .mcp.json`} {
		denied(t, run(t, e.s, e.pol, script), "read-only", "permission denied", "not a directory", "file exists")
	}
	ok(t, run(t, e.s, e.pol, `echo fine > notes.txt && cat notes.txt`), "fine")
	for _, p := range []string{".envrc", ".bashrc", ".vscode", ".git/hooks", ".mcp.json", ".idea"} {
		if _, err := os.Lstat(filepath.Join(e.ws, p)); err == nil {
			t.Fatalf("%s exists in the workspace after the run", p)
		}
	}
}

package confine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// marker is a word to find a test's processes by in /proc/*/cmdline.
func marker() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "MARK" + hex.EncodeToString(b[:])
}

// survivors are the live processes whose command line holds mark.
func survivors(mark string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), mark) {
			st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if !strings.Contains(string(st), ") Z ") {
				out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
			}
		}
	}
	return out
}

func noSurvivors(t *testing.T, mark string) {
	t.Helper()
	var left []string
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if left = survivors(mark); len(left) == 0 {
			return
		}
	}
	t.Fatalf("processes survived the run: %v", left)
}

// TestEscapeProcesses: the tree dies with the run, setsid'd children and SIGTERM
// ignorers included; limits hold; nothing of Cairn's environment leaks; the kernel's
// side doors are shut.
func TestEscapeProcesses(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-"+secret)
	for _, lv := range levels(t) {
		t.Run(string(lv), func(t *testing.T) {
			s := newSandbox(t, lv)
			pol := Policy{Workspace: t.TempDir()}
			t.Run("orphans after exit", func(t *testing.T) {
				m := marker()
				ok(t, run(t, s, pol, `setsid sh -c 'trap "" TERM; sleep 60; : `+m+`' >/dev/null 2>&1 & (sh -c 'sleep 60; : `+m+`' &) ; echo started`), "started")
				noSurvivors(t, m)
			})
			t.Run("cancel", func(t *testing.T) {
				m := marker()
				ctx, cancel := context.WithCancel(context.Background())
				p, err := s.Start(ctx, pol, []string{"/bin/sh", "-c", `setsid sh -c 'trap "" TERM; sleep 60; : ` + m + `' & trap "" TERM; echo up; sleep 60; : ` + m}, nil)
				if err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 3)
				if _, err := io.ReadFull(p.Stdout, buf); err != nil {
					t.Fatal(err)
				}
				time.Sleep(100 * time.Millisecond)
				cancel()
				done := make(chan int, 1)
				go func() { c, _ := p.Wait(); done <- c }()
				select {
				case c := <-done:
					if c != 128+9 {
						t.Fatalf("cancelled run exit %d, want SIGKILL's", c)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("Wait did not return after cancel")
				}
				noSurvivors(t, m)
			})
			t.Run("env", func(t *testing.T) {
				// every process the sandbox holds, bwrap's own pid 1 included
				r := run(t, s, pol, `env; cat /proc/self/environ; for f in /proc/[0-9]*/environ; do cat "$f" 2>/dev/null; done; true`)
				if r.code != 0 || strings.Contains(r.stdout, secret) || strings.Contains(r.stdout, "OPENAI") || strings.Contains(r.stdout, specEnv) {
					t.Fatalf("the environment leaked: %+v", r)
				}
				pol := pol
				pol.Env = map[string]string{"GIVEN": "yes"}
				ok(t, run(t, s, pol, `echo "$GIVEN"`), "yes")
			})
			t.Run("fork bomb", func(t *testing.T) {
				m := marker()
				pol := pol
				pol.Limits.Processes = 40
				r := run(t, s, pol, `python3 -c '
import os, time
n = 0
try:
    while n < 400:
        if os.fork() == 0:
            time.sleep(30); os._exit(0)
        n += 1
except OSError as e:
    print("LIMIT", n)
# `+m+`'`)
				if !strings.Contains(r.stdout, "LIMIT") {
					t.Fatalf("400 processes started: %+v", r)
				}
				noSurvivors(t, m)
				ok(t, run(t, s, pol, `sleep 0 & sleep 0 & wait; echo two`), "two")
			})
			t.Run("memory", func(t *testing.T) {
				pol := pol
				pol.Limits.MemoryBytes = 256 << 20
				denied(t, run(t, s, pol, `python3 -c 'b = bytearray(512 << 20)'`), "MemoryError")
				ok(t, run(t, s, pol, `python3 -c 'b = bytearray(16 << 20); print("fits")'`), "fits")
			})
			t.Run("disk", func(t *testing.T) {
				pol := pol
				pol.Limits.FileBytes = 1 << 20
				r := run(t, s, pol, `head -c 3000000 /dev/zero > big; echo "rc=$?"; wc -c < big`)
				if !strings.Contains(r.stdout, "1048576") || strings.Contains(r.stdout, "rc=0") {
					t.Fatalf("the file grew past the limit: %+v", r)
				}
			})
			t.Run("giant output", func(t *testing.T) {
				p, err := s.Start(context.Background(), pol, []string{"/bin/sh", "-c", "yes SPAM"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				n, _ := io.CopyN(io.Discard, p.Stdout, 20<<20)
				p.Kill()
				if c, _ := p.Wait(); n != 20<<20 || c != 128+9 {
					t.Fatalf("read %d bytes, exit %d", n, c)
				}
			})
			t.Run("side doors", func(t *testing.T) {
				for name, script := range map[string]string{
					"io_uring":   `python3 -c 'import ctypes,sys; r=ctypes.CDLL(None,use_errno=True).syscall(425, 8, ctypes.create_string_buffer(120)); print(r, ctypes.get_errno()); sys.exit(0 if r >= 0 else 1)'`,
					"ptrace":     `python3 -c 'import ctypes,os,sys; r=ctypes.CDLL(None,use_errno=True).ptrace(16, os.getppid(), 0, 0); print(r, ctypes.get_errno()); sys.exit(0 if r == 0 else 1)'`,
					"userns":     `unshare -U true`,
					"nested":     `unshare -Urn true`,
					"bwrap":      `bwrap --ro-bind / / true`,
					"mount":      `mount -t tmpfs none "$TMPDIR"`,
					"bpf":        `python3 -c 'import ctypes,sys; r=ctypes.CDLL(None,use_errno=True).syscall(321, 0, 0, 0); sys.exit(0 if r >= 0 else 1)'`,
					"keyctl":     `python3 -c 'import ctypes,sys; r=ctypes.CDLL(None,use_errno=True).syscall(250, 0, -3, 0); sys.exit(0 if r >= 0 else 1)'`,
					"vsock":      `python3 -c 'import socket; socket.socket(40, socket.SOCK_STREAM)'`,
					"setuid bin": `su -c id nobody; exit 1`,
				} {
					t.Run(name, func(t *testing.T) { denied(t, run(t, s, pol, script)) })
				}
			})
		})
	}
}

// TestToolchainsWork: Python's asyncio and `npm test` run inside.
func TestToolchainsWork(t *testing.T) {
	for _, lv := range levels(t) {
		t.Run(string(lv), func(t *testing.T) {
			s := newSandbox(t, lv)
			ws := t.TempDir()
			mustWrite(t, filepath.Join(ws, "package.json"), `{"name":"t","version":"1.0.0","scripts":{"test":"node test.js"}}`)
			mustWrite(t, filepath.Join(ws, "test.js"), `require("fs").writeFileSync("out.txt", "node-ok"); console.log("tests passed")`)
			pol := Policy{Workspace: ws}
			ok(t, run(t, s, pol, `python3 -c '
import asyncio
async def main():
    proc = await asyncio.create_subprocess_exec("echo", "child", stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    await asyncio.sleep(0.01)
    print("asyncio", out.decode().strip())
asyncio.run(main())'`), "asyncio child")
			ok(t, run(t, s, pol, `npm test --offline --no-update-notifier 2>&1`), "tests passed")
			if b, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(b) != "node-ok" {
				t.Fatalf("npm test did not write in the workspace: %q", b)
			}
		})
	}
}

// TestStrongBwrapGetsNoEnvironment: bubblewrap's own process stays inside the sandbox as
// its pid 1, whose environ a command could read where Landlock does not scope ptrace
// (older kernels), so bwrap is started with an empty environment, not Cairn's.
func TestStrongBwrapGetsNoEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-"+secret)
	s := newSandbox(t, Strong)
	for _, op := range []string{"", probeOp} { // a command run directly, and through the helper
		cmd, h, err := s.command(Strong, layout{pol: Policy{Workspace: t.TempDir(), Dir: "/"}, exe: s.exe, home: "/home/sandbox", tmp: "/tmp"}, []string{"true"}, op, false)
		if err != nil {
			t.Fatal(err)
		}
		h.closeChildEnds()
		h.close()
		if cmd.Env == nil || len(cmd.Env) != 0 {
			t.Fatalf("bwrap starts with the environment %q, want none (op %q)", cmd.Env, op)
		}
	}
}

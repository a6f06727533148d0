package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoginEnv: a real login shell's rc file extends PATH (as nvm or Homebrew do) and its
// noise around the dump is ignored.
func TestLoginEnv(t *testing.T) {
	bash := "/bin/bash"
	if _, err := os.Stat(bash); err != nil {
		t.Fatal("bash is needed:", err)
	}
	home := t.TempDir()
	tools := filepath.Join(home, ".nvm", "bin")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	writeScript(t, tools, "npx", "exit 0")
	rc := "echo 'Welcome back!'\nexport PATH=\"" + tools + ":$PATH\"\nexport NVM_DIR=\"$HOME/.nvm\"\n"
	for _, f := range []string{".bash_profile", ".bashrc"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte(rc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	env, err := LoginEnv(context.Background(), bash, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(env["PATH"], tools+":") || env["NVM_DIR"] != filepath.Join(home, ".nvm") {
		t.Fatalf("PATH %q NVM_DIR %q", env["PATH"], env["NVM_DIR"])
	}
	merged := ChildEnv("linux", []string{"PATH=/usr/bin:/bin", "LANG=C"}, env, map[string]string{"LANG": "zh_CN.UTF-8"})
	path := EnvValue(merged, "PATH")
	if !strings.HasPrefix(path, tools+":") || strings.Count(path, "/usr/bin:") != 1 || EnvValue(merged, "LANG") != "zh_CN.UTF-8" {
		t.Fatalf("merged %v", merged)
	}
	got, err := LookPath("npx", path, "")
	if err != nil || got != filepath.Join(tools, "npx") {
		t.Fatalf("LookPath: %q %v", got, err)
	}
}

// TestChildEnv: a stdio server gets the default set of Cairn's variables (and of the
// login shell's), never the others, plus what its configuration sets.
func TestChildEnv(t *testing.T) {
	base := []string{"HOME=/home/me", "PATH=/usr/bin", "USER=me", "LOGNAME=me", "SHELL=/bin/zsh", "TERM=xterm",
		"LANG=en_US.UTF-8", "LC_ALL=C", "LC_TIME=de_DE", "TMPDIR=/tmp/me", "http_proxy=http://proxy:3128",
		"HTTPS_PROXY=http://proxy:3128", "no_proxy=localhost", "ALL_PROXY=socks5://proxy", "all_proxy=socks5://p",
		"OPENAI_API_KEY=sk-secret", "AWS_SECRET_ACCESS_KEY=aws", "CAIRN_TEST_SECRET=x", "Http_Proxy=odd",
		"GITHUB_TOKEN=ghp", "BASH_FUNC_f%%=() { echo; }", "TERM_PROGRAM=iTerm", "SSH_AUTH_SOCK=/tmp/agent"}
	login := map[string]string{"PATH": "/opt/homebrew/bin:/usr/bin", "NPM_TOKEN": "npm_x", "EDITOR": "vim"}
	server := map[string]string{"API_KEY": "configured", "HOME": "/srv"}
	got := map[string]string{}
	for _, kv := range ChildEnv("linux", base, login, server) {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	want := map[string]string{"HOME": "/srv", "PATH": "/opt/homebrew/bin:/usr/bin", "USER": "me", "LOGNAME": "me",
		"SHELL": "/bin/zsh", "TERM": "xterm", "LANG": "en_US.UTF-8", "LC_ALL": "C", "LC_TIME": "de_DE", "TMPDIR": "/tmp/me",
		"http_proxy": "http://proxy:3128", "HTTPS_PROXY": "http://proxy:3128", "no_proxy": "localhost",
		"ALL_PROXY": "socks5://proxy", "all_proxy": "socks5://p", "API_KEY": "configured"}
	if len(got) != len(want) {
		t.Errorf("got %d variables, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}

	win := map[string]string{}
	for _, kv := range ChildEnv("windows", []string{"SystemRoot=C:\\Windows", "APPDATA=C:\\AppData", "Path=C:\\bin",
		"OPENAI_API_KEY=sk", "https_proxy=http://p"}, nil, nil) {
		k, v, _ := strings.Cut(kv, "=")
		win[k] = v
	}
	if len(win) != 4 || win["SystemRoot"] == "" || win["APPDATA"] == "" || win["Path"] == "" || win["https_proxy"] == "" {
		t.Errorf("windows: %v", win)
	}
}

// TestLoginEnvTimesOut: a shell that never finishes is abandoned (and killed) on time.
func TestLoginEnvTimesOut(t *testing.T) {
	dir := t.TempDir()
	shell := writeScript(t, dir, "slowsh", "sleep 300\n")
	start := time.Now()
	_, err := LoginEnv(context.Background(), shell, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not answer") || time.Since(start) > 3*time.Second {
		t.Fatalf("%v after %s", err, time.Since(start))
	}
}

func TestParseEnvDump(t *testing.T) {
	out := "motd\n" + envBegin + "\nA=1\nMULTI=line1\nline2\nPATH=/x:/y\n_=/usr/bin/env\n" + envEnd + "\nbye\n"
	env, ok := parseEnvDump(out)
	if !ok || env["A"] != "1" || env["MULTI"] != "line1\nline2" || env["PATH"] != "/x:/y" || env["_"] != "" {
		t.Fatalf("%v %v", env, ok)
	}
	if _, ok := parseEnvDump("no markers"); ok {
		t.Fatal("parsed without markers")
	}
}

func TestLookPathSaysWhereItLooked(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	_, err := LookPath("uvx", a+string(os.PathListSeparator)+b, "")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || nf.Command != "uvx" || len(nf.Searched) != 2 || nf.Searched[1] != b {
		t.Fatalf("%v", err)
	}
	exe := writeScript(t, b, "tool", "exit 0")
	if p, err := LookPath("./tool", "", b); err != nil || p != exe {
		t.Fatalf("relative: %q %v", p, err)
	}
	if err := os.Chmod(exe, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LookPath("tool", b, ""); err == nil {
		t.Fatal("found a file that is not executable")
	}
}

// TestStopKillsTheGroup: Stop ends a child that ignores stdin and SIGTERM, with what it
// started.
func TestStopKillsTheGroup(t *testing.T) {
	reg := NewRegistry(t.TempDir())
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "trap '' TERM; sleep 300 & wait"}, Env: os.Environ(), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(reg.dir, "*.pids")); len(files) != 1 {
		t.Fatalf("pid record: %v", files)
	}
	start := time.Now()
	if err := p.Stop(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if GroupAlive(p.Pid()) {
		t.Fatal("group alive after Stop")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Stop took %s", d)
	}
	if !strings.Contains(p.Describe(), "killed") {
		t.Fatalf("describe %q", p.Describe())
	}
	if files, _ := filepath.Glob(filepath.Join(reg.dir, "*.pids")); len(files) != 0 {
		t.Fatalf("pid record left: %v", files)
	}
}

package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Markers around the env dump, so whatever an interactive login shell prints on its own
// (greetings, prompts, warnings) is ignored.
const (
	envBegin = "__CAIRN_ENV_BEGIN_7f3a__"
	envEnd   = "__CAIRN_ENV_END_7f3a__"
)

// LoginEnv runs the user's login shell once ($SHELL -ilc) and returns the environment it
// sets up, so PATH additions from .zprofile / .bashrc (nvm, Homebrew, uv) reach MCP
// servers started by a GUI app. It gives up after timeout (a shell waiting for input or a
// slow rc file must never hold Cairn) and kills the shell's whole process group then.
// Windows has no such shell: it returns nil, nil.
func LoginEnv(ctx context.Context, shell string, timeout time.Duration) (map[string]string, error) {
	if runtime.GOOS == "windows" {
		return nil, nil
	}
	if shell == "" {
		shell = os.Getenv("SHELL")
	}
	if shell == "" {
		return nil, errors.New("SHELL is not set")
	}
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	script := fmt.Sprintf("printf '\\n%s\\n'; command env; printf '\\n%s\\n'", envBegin, envEnd)
	args := []string{"-ilc", script}
	if filepath.Base(shell) == "tcsh" || filepath.Base(shell) == "csh" {
		args = []string{"-c", script} // csh has no -i -l combination with -c
	}
	cmd := exec.Command(shell, args...)
	cmd.Stdin = nil // /dev/null
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = nil
	cmd.SysProcAttr = sysProcAttr()
	cmd.Env = append(os.Environ(), "CAIRN_RESOLVING_ENV=1")
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start login shell %s: %w", shell, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		if env, ok := parseEnvDump(out.String()); ok {
			return env, nil
		}
		if err != nil {
			return nil, fmt.Errorf("login shell %s: %w", shell, err)
		}
		return nil, fmt.Errorf("login shell %s printed no environment", shell)
	case <-t.C:
	case <-ctx.Done():
	}
	_ = signalGroup(cmd.Process.Pid, sigKill)
	<-done
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("login shell %s did not answer within %s", shell, timeout)
}

// parseEnvDump reads `env` output between the markers. Lines without "=" continue the
// previous value (values with newlines).
func parseEnvDump(s string) (map[string]string, bool) {
	i := strings.Index(s, envBegin+"\n")
	j := strings.LastIndex(s, "\n"+envEnd)
	if i < 0 || j < 0 || j < i {
		return nil, false
	}
	body := s[i+len(envBegin)+1 : j]
	env := map[string]string{}
	last := ""
	for _, line := range strings.Split(body, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && validEnvName(k) {
			env[k] = v
			last = k
			continue
		}
		if last != "" {
			env[last] += "\n" + line
		}
	}
	delete(env, "CAIRN_RESOLVING_ENV")
	for _, k := range []string{"SHLVL", "_", "PWD", "OLDPWD"} {
		delete(env, k)
	}
	return env, len(env) > 0
}

func validEnvName(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// MergeEnv builds a child's environment: Cairn's own, completed by the login shell's
// (variables Cairn lacks are added; PATH becomes the shell's PATH followed by Cairn's
// entries it did not have), then the server's own variables on top.
func MergeEnv(base []string, login map[string]string, server map[string]string) []string {
	m := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := m[k]; !ok {
			order = append(order, k)
		}
		m[k] = v
	}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			set(k, v)
		}
	}
	for k, v := range login {
		if k == "PATH" {
			set(k, JoinPath(v, m["PATH"]))
			continue
		}
		if _, ok := m[k]; !ok {
			set(k, v)
		}
	}
	for k, v := range server {
		set(k, v)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+m[k])
	}
	return out
}

// JoinPath joins PATH lists, keeping the first occurrence of every directory.
func JoinPath(lists ...string) string {
	var dirs []string
	for _, l := range lists {
		for _, d := range filepath.SplitList(l) {
			if d != "" && !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return strings.Join(dirs, string(os.PathListSeparator))
}

// EnvValue returns the last value of key in a KEY=VALUE list.
func EnvValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// LookPath finds command the way a shell with PATH=pathList would, relative commands
// against dir. The error is a *NotFoundError listing every place tried.
func LookPath(command, pathList, dir string) (string, error) {
	if command == "" {
		return "", &NotFoundError{Command: command}
	}
	if strings.ContainsRune(command, '/') || strings.ContainsRune(command, os.PathSeparator) {
		p := command
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		for _, c := range candidates(p) {
			if isExecutable(c) {
				return c, nil
			}
		}
		return "", &NotFoundError{Command: command, Searched: []string{p}}
	}
	var searched []string
	for _, d := range filepath.SplitList(pathList) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(dir, d)
		}
		searched = append(searched, d)
		for _, c := range candidates(filepath.Join(d, command)) {
			if isExecutable(c) {
				return c, nil
			}
		}
	}
	return "", &NotFoundError{Command: command, Searched: searched}
}

// candidates adds the Windows executable extensions to a path without one.
func candidates(p string) []string {
	if runtime.GOOS != "windows" || filepath.Ext(p) != "" {
		return []string{p}
	}
	exts := strings.Split(strings.ToLower(os.Getenv("PATHEXT")), ";")
	if len(exts) == 1 && exts[0] == "" {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	out := make([]string, 0, len(exts))
	for _, e := range exts {
		if e != "" {
			out = append(out, p+e)
		}
	}
	return out
}

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

// unixInherited and windowsInherited are the variables a stdio server gets from Cairn's
// own environment: the MCP SDKs' default set (what the TypeScript SDK's
// getDefaultEnvironment passes, after sudo's), plus the locale, the temporary directory
// and the proxy settings a server needs to reach the network the way Cairn does.
// Everything else (tokens, cloud credentials, Cairn's own settings) stays with Cairn; a
// server that needs more names it in its configuration.
var (
	unixInherited    = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"}
	windowsInherited = []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
		"PROCESSOR_ARCHITECTURE", "PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "SYSTEMDRIVE", "SYSTEMROOT",
		"WINDIR", "COMSPEC", "TEMP", "TMP", "USERNAME", "USERDOMAIN", "USERPROFILE", "LANG"}
	proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"}
)

// Inherited reports whether a stdio server gets the variable name from Cairn's
// environment on goos: the default set, LC_* and the proxy variables (upper or lower
// case). Windows compares names without regard to case, as Windows does.
func Inherited(goos, name string) bool {
	if goos == "windows" {
		up := strings.ToUpper(name)
		return slices.Contains(windowsInherited, up) || slices.Contains(proxyVars, up)
	}
	if slices.Contains(unixInherited, name) || strings.HasPrefix(name, "LC_") {
		return true
	}
	up := strings.ToUpper(name)
	return slices.Contains(proxyVars, up) && (name == up || name == strings.ToLower(name))
}

// ChildEnv builds a stdio server's environment: the inherited variables of base (Cairn's
// own, see Inherited), completed by the login shell's (inherited ones Cairn lacks are
// added; PATH becomes the shell's PATH followed by Cairn's entries it did not have), then
// the server's own variables on top. Values that start with "()" (exported shell
// functions) are never inherited.
func ChildEnv(goos string, base []string, login map[string]string, server map[string]string) []string {
	m := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := m[k]; !ok {
			order = append(order, k)
		}
		m[k] = v
	}
	inherit := func(k, v string) bool { return k != "" && Inherited(goos, k) && !strings.HasPrefix(v, "()") }
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok && inherit(k, v) {
			set(k, v)
		}
	}
	for _, k := range sortedKeys(login) {
		v := login[k]
		switch {
		case !inherit(k, v):
		case k == "PATH":
			set(k, JoinPath(v, m["PATH"]))
		default:
			if _, ok := m[k]; !ok {
				set(k, v)
			}
		}
	}
	for _, k := range sortedKeys(server) {
		set(k, server[k])
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+m[k])
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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

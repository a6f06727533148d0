package confine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// systemDirs are mounted (strong) or readable (reduced) for programs to run at all.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store"}

// hiddenEtc are the files of /etc that hold secrets: never readable inside.
var hiddenEtc = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssh", "/etc/ssl/private", "/etc/security/opasswd", "/etc/NetworkManager/system-connections",
	"/etc/wireguard", "/etc/ipsec.secrets", "/etc/krb5.keytab", "/etc/docker", "/etc/containerd",
}

// homeSecrets are the folders and files of a home folder that hold keys, credentials
// and browser profiles.
var homeSecrets = []string{
	".ssh", ".gnupg", ".local/share/keyrings", ".password-store", ".aws", ".azure", ".config/gcloud",
	".kube", ".docker", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".config/gh", ".mozilla",
	".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge",
	".thunderbird", "snap", "Library/Keychains", "Library/Application Support/Google/Chrome",
	"Library/Application Support/Firefox",
}

// hidden is every path the sandbox never exposes: the data directory, the home folder's
// secrets, the caller's extra ones and /etc's.
func (s *Sandbox) hidden() []string {
	var out []string
	if s.dataDir != "" {
		if d, err := filepath.Abs(s.dataDir); err == nil {
			out = append(out, evalOr(d))
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, rel := range homeSecrets {
			out = append(out, filepath.Join(evalOr(home), rel))
		}
	}
	for _, h := range s.opts.Hidden {
		out = append(out, evalOr(h))
	}
	return append(out, hiddenEtc...)
}

func evalOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// checkExposed refuses a folder to mount that is, holds or lies in a hidden path.
func checkExposed(what, path string, hidden []string) error {
	if path == "/" {
		return fmt.Errorf("the %s cannot be the whole file system", what)
	}
	if home, err := os.UserHomeDir(); err == nil && evalOr(home) == path {
		return fmt.Errorf("the %s cannot be your whole home folder (%s): pick a folder inside it", what, path)
	}
	for _, h := range hidden {
		if within(path, h) || within(h, path) {
			return fmt.Errorf("the %s %s would expose %s, which the sandbox never shows", what, path, h)
		}
	}
	return nil
}

// readOnlyPaths resolves the policy's extra read-only paths and checks each.
func (s *Sandbox) readOnlyPaths(pol Policy, hidden []string) ([]string, error) {
	var out []string
	for _, p := range pol.ReadOnly {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		abs = evalOr(abs)
		if err := checkExposed("read-only folder", abs, hidden); err != nil {
			return nil, err
		}
		out = append(out, abs)
	}
	return out, nil
}

// allowedBeneath lists what under root may be exposed when some hidden paths lie under
// it: every child, descending into those that hold a hidden path, skipping hidden ones.
// Landlock can only allow, so a folder with a secret in it is allowed piece by piece.
func allowedBeneath(root string, hidden []string) []string {
	var inside []string
	for _, h := range hidden {
		if within(root, h) {
			if h == root {
				return nil
			}
			inside = append(inside, h)
		}
	}
	if len(inside) == 0 {
		return []string{root}
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		out = append(out, allowedBeneath(filepath.Join(root, e.Name()), inside)...)
	}
	return out
}

// baseEnv is the environment every sandboxed process gets, then the policy's.
func baseEnv(pol Policy, home, tmp string) []string {
	env := map[string]string{
		"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
		"LANG": "C.UTF-8", "TERM": "dumb",
	}
	for k, v := range pol.Env {
		env[k] = v
	}
	env["HOME"], env["TMPDIR"] = home, tmp
	env["PWD"] = pol.Dir
	out := make([]string, 0, len(env))
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.Contains(v, "\x00") {
			continue
		}
		out = append(out, k+"="+v)
	}
	return out
}

// existingProtected returns the protected paths that exist, refusing a symbolic link
// among them (or among their parents inside the workspace): one could point the
// read-only mount, or the writes it should stop, anywhere.
func existingProtected(pol Policy) ([]string, error) {
	var out []string
	for _, p := range pol.protected() {
		st, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if st.Mode()&os.ModeSymlink != 0 || evalOr(p) != p {
			return nil, fmt.Errorf("the protected path %s is a symbolic link; the sandbox will not start on it", p)
		}
		out = append(out, p)
	}
	return out, nil
}

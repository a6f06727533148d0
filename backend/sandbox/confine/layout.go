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
	return resolveExposed("read-only folder", pol.ReadOnly, hidden)
}

// readWritePaths resolves the policy's further writable folders and checks each: a
// folder that exists (bwrap would make a missing one), never a hidden path.
func readWritePaths(pol Policy, hidden []string) ([]string, error) {
	out, err := resolveExposed("writable folder", pol.ReadWrite, hidden)
	if err != nil {
		return nil, err
	}
	for _, p := range out {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("the writable folder %s is not a folder", p)
		}
	}
	return out, nil
}

// resolveExposed makes each path absolute and free of symlinks, and refuses one that is,
// holds or lies in a hidden path.
func resolveExposed(what string, paths, hidden []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		abs = evalOr(abs)
		if err := checkExposed(what, abs, hidden); err != nil {
			return nil, err
		}
		out = append(out, abs)
	}
	return out, nil
}

// Exposable says whether path could be given to a run as a folder to read or write: nil
// unless it is the whole file system, the home folder itself, or is, holds or lies in a
// path the sandbox never shows (the data directory, the home folder's keys…). Callers
// that add paths of their own choosing (an MCP server's defaults) skip those it refuses.
func (s *Sandbox) Exposable(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	return checkExposed("folder", evalOr(abs), s.hidden())
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

// protectedDirs are the default protected paths that are folders.
var protectedDirs = map[string]bool{".git/hooks": true, ".vscode": true, ".idea": true, ".cursor": true, ".claude": true}

// placeholder is a protected path that does not exist yet: at the strong level a
// read-only empty file or folder is mounted there for the run (so a command cannot
// create a hook, an .envrc or an editor task), and removed after if still empty.
type placeholder struct {
	path string
	dir  bool
}

// missingProtected lists the protected paths that do not exist and whose parent folder
// does (a real folder inside the workspace).
func missingProtected(pol Policy) []placeholder {
	list := pol.Protected
	if list == nil {
		list = DefaultProtected
	}
	var out []placeholder
	for _, abs := range pol.protected() {
		if _, err := os.Lstat(abs); err == nil {
			continue
		}
		parent := filepath.Dir(abs)
		if st, err := os.Lstat(parent); err != nil || !st.IsDir() || evalOr(parent) != parent {
			continue
		}
		rel, _ := filepath.Rel(pol.Workspace, abs)
		out = append(out, placeholder{path: abs, dir: protectedDirs[filepath.ToSlash(rel)] || strings.HasSuffix(findRel(list, rel), "/")})
	}
	return out
}

// findRel returns the entry of list naming rel as written (a final slash marks a folder).
func findRel(list []string, rel string) string {
	for _, e := range list {
		if filepath.Clean(e) == rel {
			return e
		}
	}
	return ""
}

// removePlaceholders deletes the mount points bwrap made for missing protected paths,
// when they are still empty.
func removePlaceholders(ps []placeholder) {
	for _, p := range ps {
		st, err := os.Lstat(p.path)
		if err != nil || st.IsDir() != p.dir || !st.IsDir() && st.Size() != 0 {
			continue
		}
		_ = os.Remove(p.path) // a folder that is not empty stays
	}
}

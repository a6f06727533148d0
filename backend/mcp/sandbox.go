package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/proc"
	"github.com/cairn-app/cairn/backend/sandbox/confine"
)

// ServerSandbox is how a stdio server runs inside the operating system's sandbox (the
// one the task tools use): the folders it may write, the further ones it may read, and
// the domains it may reach through Cairn's proxy (none: no network at all, DNS included).
type ServerSandbox struct {
	Enabled bool     `json:"enabled"`
	Write   []string `json:"write,omitempty"`
	Read    []string `json:"read,omitempty"`
	Domains []string `json:"domains,omitempty"`
}

func (b ServerSandbox) clone() ServerSandbox {
	b.Write, b.Read, b.Domains = slices.Clone(b.Write), slices.Clone(b.Read), slices.Clone(b.Domains)
	return b
}

func (b ServerSandbox) equal(o ServerSandbox) bool {
	return b.Enabled == o.Enabled && slices.Equal(b.Write, o.Write) && slices.Equal(b.Read, o.Read) && slices.Equal(b.Domains, o.Domains)
}

// sandbox is the server's sandbox settings (the zero value: off).
func (s Server) sandbox() ServerSandbox {
	if s.Sandbox == nil {
		return ServerSandbox{}
	}
	return *s.Sandbox
}

// sandboxed says whether the server starts inside the sandbox.
func (s Server) sandboxed() bool { return s.Transport == TransportStdio && s.sandbox().Enabled }

var domainRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)

// normalizeSandbox checks the sandbox settings: absolute folders, host names (a leading
// "*." is dropped: a domain always allows its subdomains), only for stdio servers, and a
// working directory inside a writable folder (the sandbox starts the server there).
func (s *Server) normalizeSandbox() error {
	if s.Sandbox == nil {
		return nil
	}
	b := s.Sandbox
	if !b.Enabled && len(b.Write)+len(b.Read)+len(b.Domains) == 0 {
		s.Sandbox = nil
		return nil
	}
	if b.Enabled && s.Transport != TransportStdio {
		return invalid("only a stdio server (a command) can run in the sandbox")
	}
	var err error
	if b.Write, err = cleanFolders(b.Write, "writable"); err != nil {
		return err
	}
	if b.Read, err = cleanFolders(b.Read, "read-only"); err != nil {
		return err
	}
	seen := map[string]bool{}
	var domains []string
	for _, d := range b.Domains {
		d = strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(d)), "*."), ".")
		if d == "" || seen[d] {
			continue
		}
		if !domainRE.MatchString(d) || len(d) > 253 {
			return invalid(fmt.Sprintf("%s is not a domain name (write it as example.com, without a scheme, path or port)", apperr.Quote(d)))
		}
		seen[d] = true
		domains = append(domains, d)
	}
	b.Domains = domains
	if b.Enabled && s.Cwd != "" && workspaceFor(b.Write, s.Cwd) == "" {
		return invalid("with the sandbox on, the working directory must be one of its writable folders or inside one")
	}
	return nil
}

// cleanFolders trims, drops empty and repeated entries, and refuses relative paths (the
// folder would depend on where Cairn runs).
func cleanFolders(in []string, what string) ([]string, error) {
	var out []string
	for _, f := range in {
		f = strings.TrimSpace(f)
		if f == "" || slices.Contains(out, filepath.Clean(f)) {
			continue
		}
		if !filepath.IsAbs(f) {
			return nil, invalid(fmt.Sprintf("the sandbox's %s folder %s must be an absolute path", what, apperr.Quote(f)))
		}
		out = append(out, filepath.Clean(f))
	}
	return out, nil
}

// workspaceFor is the writable folder that holds dir ("" when none does).
func workspaceFor(write []string, dir string) string {
	for _, w := range write {
		if rel, err := filepath.Rel(w, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return w
		}
	}
	return ""
}

// sandboxFor is the sandbox servers start in: the one Config gave, else one made on
// first use (probed then, once).
func (m *Manager) sandboxFor() (*confine.Sandbox, error) {
	m.sbOnce.Do(func() {
		if m.sb == nil {
			m.sb, m.sbErr = confine.New(m.dataDir, confine.Options{})
		}
	})
	return m.sb, m.sbErr
}

// sandboxUnavailable is a sandboxed server that cannot start because the sandbox cannot
// give what it asks for: never a silent unsandboxed start.
func sandboxUnavailable(server string, level confine.Level, reasons []string, err error) *apperr.Error {
	why := strings.Join(reasons, "; ")
	if why == "" && err != nil {
		why = err.Error()
	}
	return apperr.New(apperr.MCPSandboxUnavailable, "mcp server %s is set to run in the sandbox, but no sandbox works here (level %s): %s", server, level, why).
		WithParam("server", server).WithParam("level", string(level)).WithParam("reason", why)
}

// sandboxLaunch prepares a sandboxed start of rc: it checks that the sandbox's level gives
// what the server asks for and returns the launcher and the environment the server gets
// (its own configured variables, a PATH that finds its command, nothing of Cairn's).
func (m *Manager) sandboxLaunch(ctx context.Context, rc resolved, path string) (proc.Launcher, []string, error) {
	sb, err := m.sandboxFor()
	if err != nil {
		return nil, nil, sandboxUnavailable(rc.Name, confine.None, nil, err)
	}
	st := sb.Status(ctx)
	box := rc.sandbox()
	if st.Level == confine.None {
		return nil, nil, sandboxUnavailable(rc.Name, st.Level, st.Reasons, nil)
	}
	if len(box.Domains) > 0 && st.Level != confine.Strong {
		return nil, nil, apperr.New(apperr.MCPSandboxNetwork,
			"mcp server %s may reach %s only at the strong sandbox level; this machine gives %s, so it does not start (the network would not stay closed)", rc.Name, strings.Join(box.Domains, ", "), st.Level).
			WithParam("server", rc.Name).WithParam("level", string(st.Level)).WithParam("domains", strings.Join(box.Domains, ", "))
	}
	pol, err := m.serverPolicy(sb, rc, path)
	if err != nil {
		return nil, nil, err
	}
	return confinedLauncher{ctx: m.ctx, sb: sb, pol: pol}, sandboxEnv(rc, path, pol), nil
}

// serverPolicy is the sandbox policy of a server: its working directory's writable
// folder (else the first, else a private folder of its own beside the data directory)
// as the workspace, the other writable folders, its read-only folders plus the defaults
// its command needs (defaultReadable), its domains, no CPU-time limit (it runs for hours).
func (m *Manager) serverPolicy(sb *confine.Sandbox, rc resolved, path string) (confine.Policy, error) {
	box := rc.sandbox()
	ws := ""
	if rc.Cwd != "" {
		ws = workspaceFor(box.Write, rc.Cwd)
	}
	if ws == "" && len(box.Write) > 0 {
		ws = box.Write[0]
	}
	if ws == "" {
		var err error
		if ws, err = m.privateFolder(cmp.Or(rc.ID, "unsaved")); err != nil {
			return confine.Policy{}, apperr.Wrap(err, apperr.MCPConnectFailed, "mcp server %s: its sandbox folder", rc.Name).
				WithParam("server", rc.Name).WithParam("message", err.Error())
		}
	}
	for _, w := range box.Write {
		if st, err := os.Stat(w); err != nil || !st.IsDir() {
			return confine.Policy{}, invalid(fmt.Sprintf("the sandbox's writable folder %s does not exist", w))
		}
	}
	pol := confine.Policy{Workspace: ws, Dir: rc.Cwd, Network: box.Domains,
		Limits: confine.Limits{CPUSeconds: math.MaxInt32}}
	for _, w := range box.Write {
		if w != ws {
			pol.ReadWrite = append(pol.ReadWrite, w)
		}
	}
	pol.ReadOnly = append(slices.Clone(box.Read), defaultReadable(sb, path, rc.args)...)
	return pol, nil
}

// privateFolder is a sandboxed server's own writable folder when it names none:
// <data>-mcp/<id>, beside the data directory (which the sandbox never shows).
func (m *Manager) privateFolder(id string) (string, error) {
	base := filepath.Join(os.TempDir(), "cairn-mcp")
	if m.dataDir != "" {
		abs, err := filepath.Abs(m.dataDir)
		if err != nil {
			return "", err
		}
		base = abs + "-mcp"
	}
	dir := filepath.Join(base, id)
	return dir, os.MkdirAll(dir, 0o700)
}

// nodeCommands run JavaScript packages: their server needs the npm cache readable.
var nodeCommands = []string{"node", "npx", "npm", "pnpm", "pnpx", "yarn", "bun", "bunx", "deno"}

// defaultReadable are the paths a sandboxed command needs to run at all, beyond the
// system folders the sandbox always shows: the install folder of the command (the parent
// of its bin folder: a Node installed by nvm, a Python virtual environment), of the file
// it links to, the package of each script named in the arguments (the outermost
// node_modules folder holding it, else the nearest folder with a package.json or
// pyproject.toml, else its folder), and for Node commands the npm cache (~/.npm, read
// only: a server must not plant code in a cache that unsandboxed servers run). A path
// the sandbox would refuse (the home folder itself, a secret) is left out.
func defaultReadable(sb *confine.Sandbox, path string, args []string) []string {
	var out []string
	add := func(p string) {
		if p == "" || slices.Contains(out, p) || sb.Exposable(p) != nil {
			return
		}
		out = append(out, p)
	}
	add(installDir(path))
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		add(installDir(real))
	}
	for _, a := range args {
		if file := scriptArg(a); file != "" {
			add(packageRoot(file))
		}
	}
	if isNodeCommand(path) {
		if home, err := os.UserHomeDir(); err == nil {
			if st, err := os.Stat(filepath.Join(home, ".npm")); err == nil && st.IsDir() {
				add(filepath.Join(home, ".npm"))
			}
		}
	}
	return out
}

func isNodeCommand(path string) bool {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return slices.Contains(nodeCommands, base)
}

// installDir is the folder a command was installed into: the parent of its bin folder,
// else its own folder.
func installDir(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "bin" {
		return filepath.Dir(dir)
	}
	return dir
}

// scriptArg is the resolved path of an argument that names an existing file by an
// absolute path ("" otherwise).
func scriptArg(a string) string {
	if !filepath.IsAbs(a) {
		return ""
	}
	real, err := filepath.EvalSymlinks(a)
	if err != nil {
		return ""
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return real
}

// packageRoot is the folder that holds what a script needs: the outermost node_modules
// folder above it, else the nearest folder with a package.json or pyproject.toml (below
// the home folder), else the script's folder.
func packageRoot(file string) string {
	sep := string(filepath.Separator)
	if i := strings.Index(file, sep+"node_modules"+sep); i >= 0 {
		return file[:i+len(sep+"node_modules")]
	}
	home, _ := os.UserHomeDir()
	for dir := filepath.Dir(file); dir != home && dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		for _, marker := range []string{"package.json", "pyproject.toml"} {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return dir
			}
		}
	}
	return filepath.Dir(file)
}

// sandboxArgs gives each argument that names an existing file through a symbolic link as
// its target: the sandbox shows files where they are, not where a link says.
func sandboxArgs(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if real := scriptArg(a); real != "" {
			out[i] = real
		}
	}
	return out
}

// sandboxEnv is a sandboxed server's whole environment (the sandbox adds HOME, TMPDIR,
// LANG and TERM): its configured variables, and a PATH with its command's folder first
// unless it sets one. Node commands get the npm cache of the user, read-only and offline
// (no update check, no log files), so npx finds the packages it installed before.
func sandboxEnv(rc resolved, path string, pol confine.Policy) []string {
	env := map[string]string{}
	if isNodeCommand(path) {
		if home, err := os.UserHomeDir(); err == nil && slices.Contains(pol.ReadOnly, filepath.Join(home, ".npm")) {
			env["npm_config_cache"] = filepath.Join(home, ".npm")
		}
		env["npm_config_update_notifier"] = "false"
		env["npm_config_logs_max"] = "0"
		if !slices.ContainsFunc(pol.Network, func(d string) bool { return d == "registry.npmjs.org" || d == "npmjs.org" }) {
			env["npm_config_offline"] = "true"
		}
	}
	for k, v := range rc.env {
		env[k] = v
	}
	if _, ok := env["PATH"]; !ok {
		env["PATH"] = filepath.Dir(path) + string(os.PathListSeparator) + "/usr/local/bin:/usr/bin:/bin"
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// sandboxEnvNames names what Cairn itself puts in a sandboxed server's environment
// (sandboxEnv, and what the sandbox sets), for Environment.
func (m *Manager) sandboxEnvNames(cfg Server) []string {
	path := cfg.Command
	env := proc.ChildEnv(runtime.GOOS, os.Environ(), m.loginEnv(), nil)
	if p, _, err := lookCommand(cfg.Command, env, cfg.Cwd); err == nil {
		path = p
	}
	pol := confine.Policy{Network: cfg.sandbox().Domains}
	if home, err := os.UserHomeDir(); err == nil {
		pol.ReadOnly = []string{filepath.Join(home, ".npm")}
	}
	names := []string{"HOME", "TMPDIR", "LANG", "TERM", "PWD"}
	for _, kv := range sandboxEnv(resolved{Server: cfg}, path, pol) {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	return names
}

// confinedLauncher starts a server's process with confine (proc.Launcher). The process
// lives until Cairn closes (ctx), not until the connect that started it ends.
type confinedLauncher struct {
	ctx context.Context
	sb  *confine.Sandbox
	pol confine.Policy
}

func (l confinedLauncher) Launch(x proc.Launch) (proc.Child, error) {
	pol := l.pol
	pol.Env = map[string]string{}
	for _, kv := range x.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			pol.Env[k] = v
		}
	}
	p, err := l.sb.Start(l.ctx, pol, append([]string{x.Path}, x.Args...), x.Stdin)
	if errors.Is(err, confine.ErrUnconfined) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("start in the sandbox: %w", err)
	}
	return confinedChild{p}, nil
}

type confinedChild struct{ p *confine.Process }

func (c confinedChild) Pid() int              { return c.p.Pid() }
func (c confinedChild) Stdout() io.ReadCloser { return c.p.Stdout }
func (c confinedChild) Stderr() io.Reader     { return c.p.Stderr }
func (c confinedChild) Wait() (int, error)    { return c.p.Wait() }
func (c confinedChild) Kill()                 { c.p.Kill() }

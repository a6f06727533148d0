package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/termtext"
)

// repeated is a flag that may be given several times, each value whole (an environment
// value may hold commas).
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, " ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// serverFlags are the flags `cairn mcp add` and `edit` share; set says which were given.
type serverFlags struct {
	url, transport, cwd, name   string
	env, headers, roots         repeated
	connectTimeout, callTimeout time.Duration
	disabled                    bool
	rootsMode                   string
	sandbox                     bool
	sbWrite, sbRead, sbDomains  repeated
	set                         map[string]bool
}

func (a *mcpArgs) serverFlags(edit bool) *serverFlags {
	sf := &serverFlags{}
	a.f.StringVar(&sf.url, "url", "", "a remote server's URL (Streamable HTTP, or SSE with --transport sse)")
	a.f.StringVar(&sf.transport, "transport", "", "stdio, http or sse (default: from the command or the URL)")
	a.f.StringVar(&sf.cwd, "cwd", "", "a stdio server's working directory")
	a.f.Var(&sf.env, "env", "KEY=VALUE for the server's environment (repeatable; a credential-named one is kept in the keyring)")
	a.f.Var(&sf.headers, "header", "'Name: value' sent to a remote server (repeatable)")
	a.f.Var(&sf.roots, "root", "a folder offered to the server as an MCP root, where it reads and writes files (repeatable; replaces the roots; --root '' offers none)")
	a.f.StringVar(&sf.rootsMode, "roots-mode", "", "which MCP roots the server is offered: none, workspace (the --root folders and the calling task session's workspace), folders (the --root folders only), or auto (workspace unless its arguments name a folder)")
	a.f.BoolVar(&sf.sandbox, "sandbox", false, "run the server inside the operating system's sandbox (--sandbox=false turns it off)")
	a.f.Var(&sf.sbWrite, "sandbox-write", "a folder the sandboxed server may write (repeatable; replaces the list; --sandbox-write '' none: a private folder of its own)")
	a.f.Var(&sf.sbRead, "sandbox-read", "a further folder the sandboxed server may read (repeatable; replaces the list)")
	a.f.Var(&sf.sbDomains, "sandbox-allow-domain", "a domain the sandboxed server may reach through Cairn's proxy (repeatable; replaces the list; needs the strong sandbox level; default: no network)")
	a.f.DurationVar(&sf.connectTimeout, "connect-timeout", 0, "how long start-up and initialize may take, e.g. 90s (0: the default, 30s)")
	a.f.DurationVar(&sf.callTimeout, "call-timeout", 0, "how long one tool call may take, e.g. 10m (0: no limit of its own)")
	if edit {
		a.f.StringVar(&sf.name, "name", "", "a new name")
	} else {
		a.f.BoolVar(&sf.disabled, "disabled", false, "add it turned off")
	}
	return sf
}

// splitCommand cuts the arguments at "--": what follows is the server's command line,
// whose own flags (npx -y) are not Cairn's.
func splitCommand(args []string) (own, command []string) {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i], args[i+1:]
	}
	return args, nil
}

// apply writes the given flags (and a command line) into s.
func (sf *serverFlags) apply(s *mcp.Server, command []string) error {
	if sf.connectTimeout < 0 || sf.callTimeout < 0 {
		return usageErr("a timeout cannot be negative")
	}
	if len(command) > 0 {
		s.Command, s.Args, s.URL = command[0], slices.Clone(command[1:]), ""
	}
	if sf.set["url"] {
		s.URL, s.Command, s.Args = sf.url, "", nil
	}
	if sf.set["transport"] {
		s.Transport = mcp.Transport(sf.transport)
	} else if len(command) > 0 || sf.set["url"] {
		s.Transport = "" // Save picks it from the command or the URL
	}
	if sf.set["cwd"] {
		s.Cwd = sf.cwd
	}
	if sf.set["root"] {
		s.Roots = nil
		for _, r := range sf.roots {
			if r = strings.TrimSpace(r); r == "" {
				continue
			}
			// Absolute here: a relative folder means this terminal's, not the owner's.
			abs, err := filepath.Abs(r)
			if err != nil {
				return usageErr("--root %s: %v", r, err)
			}
			s.Roots = append(s.Roots, abs)
		}
	}
	if sf.set["roots-mode"] {
		mode := strings.TrimSpace(sf.rootsMode)
		if mode == "auto" {
			mode = ""
		}
		s.RootsMode = mcp.RootsMode(mode)
	}
	if err := sf.applySandbox(s); err != nil {
		return err
	}
	if sf.set["name"] {
		s.Name = sf.name
	}
	if sf.set["connect-timeout"] {
		s.ConnectTimeoutMs = int(sf.connectTimeout / time.Millisecond)
	}
	if sf.set["call-timeout"] {
		s.CallTimeoutMs = int(sf.callTimeout / time.Millisecond)
	}
	var err error
	if s.Env, err = setVars(s.Env, sf.env, "="); err != nil {
		return err
	}
	s.Headers, err = setVars(s.Headers, sf.headers, ":")
	return err
}

// applySandbox writes the --sandbox flags into s: a list given replaces the stored one,
// and a folder is made absolute here (a relative one means this terminal's).
func (sf *serverFlags) applySandbox(s *mcp.Server) error {
	if !sf.set["sandbox"] && !sf.set["sandbox-write"] && !sf.set["sandbox-read"] && !sf.set["sandbox-allow-domain"] {
		return nil
	}
	var box mcp.ServerSandbox
	if s.Sandbox != nil {
		box = *s.Sandbox
	}
	if sf.set["sandbox"] {
		box.Enabled = sf.sandbox
	}
	folders := func(flag string, given repeated) ([]string, error) {
		var out []string
		for _, d := range given {
			if d = strings.TrimSpace(d); d == "" {
				continue
			}
			abs, err := filepath.Abs(d)
			if err != nil {
				return nil, usageErr("--%s %s: %v", flag, d, err)
			}
			out = append(out, abs)
		}
		return out, nil
	}
	var err error
	if sf.set["sandbox-write"] {
		if box.Write, err = folders("sandbox-write", sf.sbWrite); err != nil {
			return err
		}
	}
	if sf.set["sandbox-read"] {
		if box.Read, err = folders("sandbox-read", sf.sbRead); err != nil {
			return err
		}
	}
	if sf.set["sandbox-allow-domain"] {
		box.Domains = nil
		for _, d := range sf.sbDomains {
			if d = strings.TrimSpace(d); d != "" {
				box.Domains = append(box.Domains, d)
			}
		}
	}
	s.Sandbox = &box
	return nil
}

// setVars sets each NAME<sep>VALUE in vs (a new value of a secret stays secret).
func setVars(vs []mcp.Var, given []string, sep string) ([]mcp.Var, error) {
	for _, g := range given {
		name, value, ok := strings.Cut(g, sep)
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			return nil, usageErr("%q is not NAME%sVALUE", g, sep)
		}
		i := slices.IndexFunc(vs, func(v mcp.Var) bool { return strings.EqualFold(v.Name, name) })
		if i < 0 {
			vs = append(vs, mcp.Var{Name: name, Value: value})
			continue
		}
		vs[i].Value = value
	}
	return vs, nil
}

func (sf *serverFlags) record(f *flag.FlagSet) {
	sf.set = map[string]bool{}
	f.Visit(func(fl *flag.Flag) { sf.set[fl.Name] = true })
}

func mcpAdd(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "add")
	sf := a.serverFlags(false)
	own, command := splitCommand(args)
	pos, err := a.parse(own, 1, 1)
	if err != nil {
		return err
	}
	sf.record(a.f)
	if (len(command) == 0) == (sf.url == "") {
		return usageErr("cairn mcp add: give a command after -- or a --url, one of them\nusage: cairn mcp add %s", a.usageArgs())
	}
	s := mcp.Server{Name: pos[0], Enabled: !sf.disabled}
	if err := sf.apply(&s, command); err != nil {
		return err
	}
	return withMCP(ctx, env, func(_ *conn, m mcpBackend) error {
		v, err := m.Save(ctx, s)
		if err != nil {
			return err
		}
		printSaved(env, v, "added")
		return nil
	})
}

func mcpEdit(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "edit")
	sf := a.serverFlags(true)
	own, command := splitCommand(args)
	pos, err := a.parse(own, 1, 1)
	if err != nil {
		return err
	}
	sf.record(a.f)
	if len(sf.set) == 0 && len(command) == 0 {
		return usageErr("cairn mcp edit: nothing to change\nusage: cairn mcp edit %s", a.usageArgs())
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		v, err := m.View(ctx, id)
		if err != nil {
			return err
		}
		s := v.Server // secret values are empty here: Save keeps the stored ones
		s.Credentials = nil
		if err := sf.apply(&s, command); err != nil {
			return err
		}
		out, err := m.Save(ctx, s)
		if err != nil {
			return err
		}
		printSaved(env, out, "saved")
		return nil
	})
}

// printSaved says what was stored: the name, the id and the timeouts in force.
func printSaved(env *Env, v mcp.ServerView, what string) {
	connect := mcp.DefaultConnectTimeout.String() + " (default)"
	if v.ConnectTimeoutMs > 0 {
		connect = (time.Duration(v.ConnectTimeoutMs) * time.Millisecond).String()
	}
	call := "none"
	if v.CallTimeoutMs > 0 {
		call = (time.Duration(v.CallTimeoutMs) * time.Millisecond).String()
	}
	fmt.Fprintf(env.Stdout, "%s: %s (%s); connect timeout %s, call timeout %s\n", termtext.Line(v.Name), what, v.ID, connect, call)
	roots := string(v.RootsModeInEffect)
	if v.RootsMode == mcp.RootsAuto {
		roots += " (auto)"
	}
	fmt.Fprintf(env.Stdout, "  roots: %s\n", roots)
	if b := v.Sandbox; b != nil && b.Enabled {
		network := "off"
		if len(b.Domains) > 0 {
			network = strings.Join(b.Domains, ", ")
		}
		write := "a private folder of its own"
		if len(b.Write) > 0 {
			write = strings.Join(b.Write, ", ")
		}
		fmt.Fprintf(env.Stdout, "  sandbox: on; writes %s; reads %s; network %s\n", termtext.Line(write),
			termtext.Line(cmp.Or(strings.Join(b.Read, ", "), "its command's own folders")), termtext.Line(network))
	}
	for _, w := range v.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", termtext.Line(env.Localize(w)))
	}
}

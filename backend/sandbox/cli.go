package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/sandbox/confine"
)

// Commands are the `cairn sandbox` commands. They run in the terminal's process: exec
// needs its stdin, and passes the command's exit code on.
func Commands() []capability.Command {
	return []capability.Command{{
		Name:    "sandbox",
		Summary: "status [--json] | exec --workspace DIR [--read-only DIR]… [--allow-domain D]… [--level L] [--allow-unsandboxed] -- CMD…",
		Local:   true,
		Run:     runCLI,
	}}
}

// ExitStatus is a sandboxed command's non-zero exit code, passed on as Cairn's own.
type ExitStatus int

func (e ExitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// ExitCode is the code the terminal exits with.
func (e ExitStatus) ExitCode() int { return int(e) }

func runCLI(ctx context.Context, t capability.Terminal, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: cairn sandbox status [--json] | exec --workspace DIR -- CMD…")
	}
	switch args[0] {
	case "status":
		return runStatus(ctx, t, args[1:])
	case "exec":
		return runExec(ctx, t, args[1:])
	}
	return fmt.Errorf("unknown sandbox command %q (status, exec)", args[0])
}

func runStatus(ctx context.Context, t capability.Terminal, args []string) error {
	f := flag.NewFlagSet("sandbox status", flag.ContinueOnError)
	f.SetOutput(t.Stderr)
	asJSON := f.Bool("json", false, "print JSON")
	level := f.String("level", "", "force a level (strong, reduced, none)")
	if err := f.Parse(args); err != nil {
		return err
	}
	sb, err := confine.New(t.DataDir, confine.Options{Force: confine.Level(*level)})
	if err != nil {
		return err
	}
	st := sb.Status(ctx)
	if *asJSON {
		enc := json.NewEncoder(t.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(t.Stdout, "level: %s\n", st.Level)
	for _, a := range []struct {
		name string
		a    confine.Aspect
	}{{"reads", st.Reads}, {"writes", st.Writes}, {"network", st.Network}, {"processes", st.Processes}, {"limits", st.Limits}} {
		mark := "yes"
		if !a.a.Holds {
			mark = "no "
		}
		fmt.Fprintf(t.Stdout, "  %-9s %s  %s\n", a.name, mark, a.a.Detail)
	}
	for _, r := range st.Reasons {
		fmt.Fprintf(t.Stdout, "  note: %s\n", r)
	}
	return nil
}

// multi is a repeatable flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func runExec(ctx context.Context, t capability.Terminal, args []string) error {
	f := flag.NewFlagSet("sandbox exec", flag.ContinueOnError)
	f.SetOutput(t.Stderr)
	ws := f.String("workspace", "", "the folder the command may write (required)")
	level := f.String("level", "", "force a level (strong, reduced, none)")
	unconfined := f.Bool("allow-unsandboxed", false, "run unconfined when no sandbox works here")
	var ro, env, domains multi
	f.Var(&ro, "read-only", "a further folder the command may read (repeatable)")
	f.Var(&domains, "allow-domain", "a domain the command may reach through Cairn's proxy (repeatable; default: no network)")
	f.Var(&env, "env", "KEY=VALUE for the command's environment (repeatable)")
	if err := f.Parse(args); err != nil {
		return err
	}
	argv := f.Args()
	if *ws == "" || len(argv) == 0 {
		return errors.New("usage: cairn sandbox exec --workspace DIR -- CMD…")
	}
	pol := confine.Policy{Workspace: abs(t.Dir, *ws), Env: map[string]string{}, Network: domains}
	for _, r := range ro {
		pol.ReadOnly = append(pol.ReadOnly, abs(t.Dir, r))
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		pol.Env[k] = v
	}
	sb, err := confine.New(t.DataDir, confine.Options{Force: confine.Level(*level), AllowUnconfined: *unconfined})
	if err != nil {
		return err
	}
	p, err := sb.Start(ctx, pol, argv, t.Stdin)
	if err != nil {
		return err
	}
	if p.Level == confine.None {
		fmt.Fprintln(t.Stderr, "cairn: running unsandboxed (no sandbox works here)")
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _, _ = io.Copy(t.Stderr, p.Stderr) }()
	_, _ = io.Copy(t.Stdout, p.Stdout)
	wg.Wait()
	code, err := p.Wait()
	if err != nil {
		return err
	}
	for _, h := range p.Reached() {
		fmt.Fprintln(t.Stderr, "cairn: reached", h)
	}
	if code != 0 {
		return ExitStatus(code)
	}
	return nil
}

func abs(dir, p string) string {
	if filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}

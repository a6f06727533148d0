// Package cli is Cairn's terminal client: every subcommand runs on the same backend
// packages as the desktop window, so there is no second implementation.
package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/termtext"
	"github.com/cairn-app/cairn/backend/webfetch"
	"golang.org/x/term"
)

// Deps are what the main package gives the CLI: the bound facade for `serve` and the
// built frontend.
type Deps struct {
	// NewBound returns the facade whose exported methods `serve` exposes (main.App).
	NewBound func(ctx context.Context, s *service.Services) any
	// Assets is the built frontend (frontend/dist).
	Assets fs.FS
	// Desktop reports whether this binary has the desktop window built in.
	Desktop bool
	// Locales holds <lang>/errors.json, the same texts the windows show.
	Locales fs.FS
	// Window runs when no command is given: the desktop window (or, in a binary built
	// without it, how to get it). It returns the exit code; nil prints the usage.
	Window func(ctx context.Context, env *Env) int
}

// Env is what a command runs with.
type Env struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	DataDir string
	Deps    Deps
}

// Open builds the services for the chosen data directory, for a command that does not
// go through a running owner yet: with no owner it holds the directory's lock shared for
// its run, so a `serve` or desktop app starting meanwhile waits for it; beside an owner it
// opens the directory as well, as every command did before owners.
func (e *Env) Open(ctx context.Context) (*service.Services, error) {
	dir, err := service.ResolveDataDir(e.DataDir)
	if err != nil {
		return nil, err
	}
	client, lock, err := owner.Attach(ctx, dir, 0)
	if err != nil && !apperr.Is(err, apperr.DataDirBusy) {
		return nil, err
	}
	if client != nil {
		client.Close()
	}
	s, err := service.Open(ctx, service.Options{DataDir: dir})
	if lock != nil {
		if err != nil {
			lock.Close()
			return nil, err
		}
		s.OnClose(lock.Close)
	}
	return s, err
}

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, env *Env, args []string) error
}

// commands is Cairn's own subcommands, then the capabilities'.
func commands() []Command {
	return append(coreCommands(), capabilityCommands(service.Capabilities())...)
}

func coreCommands() []Command {
	return []Command{
		{Name: "serve", Summary: "serve the app to a browser on loopback (token-protected)", Run: runServe},
		{Name: "doctor", Summary: "check this installation [--json]", Run: runDoctor},
		{Name: "version", Summary: "print the version [--json]", Run: runVersion},
		{Name: "settings", Summary: "list | get KEY | set KEY VALUE", Run: runSettings},
		{Name: "secrets", Summary: "list [--json] | set NAME (value from stdin) | delete NAME", Run: runSecrets},
		{Name: "provider", Summary: "add NAME --base-url URL --model M [--api-key-stdin] | list [--json] | remove NAME | models | test", Run: runProvider},
		{Name: "chat", Summary: "[--session ID | --assistant NAME] [--provider P --model M] [--json] PROMPT: stream an answer", Run: runChat},
		{Name: "backup", Summary: "FILE [--with-keys]: back up the data directory (keys only when asked, encrypted)", Run: runBackup},
		{Name: "restore", Summary: "FILE: restore a backup into the data directory (no Cairn may be running on it)", Run: runRestore},
		{Name: "sessions", Summary: "export ID [--format md|json] [-o FILE] | export --all -o FILE.zip | import FILE [--json] | search QUERY [--json]", Run: runSessions},
		{Name: "mcp", Summary: "list | tools [SERVER] | call SERVER TOOL JSON | approval SERVER TOOL ask|allow|default | enable|disable SERVER [TOOL] | logs | import | export | test | env | trust-hints | login | logout | remove", Run: runMCP},
	}
}

// capabilityCommands are the commands the capabilities declare. One opens the data
// directory only when it asks to (Terminal.Open), and it closes when the command ends.
func capabilityCommands(l capability.List) []Command {
	var out []Command
	for _, c := range l {
		for _, cmd := range c.Commands {
			out = append(out, Command{Name: cmd.Name, Summary: cmd.Summary, Run: func(ctx context.Context, env *Env, args []string) error {
				dir, err := service.ResolveDataDir(env.DataDir)
				if err != nil {
					return err
				}
				wd, _ := os.Getwd()
				if cmd.Local {
					return cmd.Run(ctx, capability.Terminal{Dir: wd, DataDir: dir, Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr}, args)
				}
				// With an owner running, the command runs there, on its services.
				client, lock, err := owner.Attach(ctx, dir, ownerWait)
				if err != nil {
					return err
				}
				if client != nil {
					defer client.Close()
					return runInOwner(ctx, env, client, cmd.Name, args)
				}
				defer lock.Close()
				var s *service.Services
				defer func() {
					if s != nil {
						s.Close()
					}
				}()
				t := capability.Terminal{Dir: wd, DataDir: dir, Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
					Open: func(ctx context.Context) (capability.Env, error) {
						if s == nil {
							opened, err := env.Open(ctx)
							if err != nil {
								return capability.Env{}, err
							}
							s = opened
						}
						return s.CapabilityEnv(c), nil
					}}
				return cmd.Run(ctx, t, args)
			}})
		}
	}
	return out
}

// maxArgBytes bounds one command-line argument: longer input (a prompt, a JSON document)
// comes on stdin or from a file, and no error has to quote it.
const maxArgBytes = 64 << 10

func checkArgs(args []string) error {
	for i, a := range args {
		if len(a) > maxArgBytes {
			return usageErr("argument %d is %s: an argument can hold at most %d KiB; pass long input on stdin or in a file",
				i+1, apperr.Quote(a), maxArgBytes>>10)
		}
	}
	return nil
}

// exitError carries an exit code without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Run executes a subcommand and returns the process exit code.
func Run(ctx context.Context, args []string, env *Env) int {
	global := flag.NewFlagSet("cairn", flag.ContinueOnError)
	global.SetOutput(env.Stderr)
	dataDir := global.String("data-dir", service.DefaultDataDir(), "data directory (env CAIRN_DATA_DIR)")
	global.Usage = func() { usage(env.Stderr, global) }
	if err := checkArgs(args); err != nil { // counted as typed, before --data-dir moves
		return env.report(err)
	}
	args = hoistGlobalFlags(args)
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	env.DataDir = *dataDir
	rest := global.Args()
	if len(rest) == 0 {
		if env.Deps.Window != nil {
			return env.Deps.Window(ctx, env)
		}
		usage(env.Stderr, global)
		return 2
	}
	name := rest[0]
	if name == "help" {
		usage(env.Stdout, global)
		return 0
	}
	for _, c := range commands() {
		if c.Name == name {
			err := c.Run(ctx, env, rest[1:])
			return env.report(err)
		}
	}
	fmt.Fprintf(env.Stderr, "cairn: unknown command %s\n\n", apperr.Quote(name))
	usage(env.Stderr, global)
	return 2
}

func (env *Env) report(err error) int {
	w := env.Stderr
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var coded interface{ ExitCode() int } // a capability's command passing a code on
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	ae := apperr.From(err)
	// An error can carry a server's or a model's words: shown, never obeyed.
	fmt.Fprintf(w, "cairn: %s\n", termtext.Text(env.Localize(ae)))
	if ae.Action != nil && ae.Action.Kind == "open-settings" {
		if cmd := actionCommand(ae); cmd != "" {
			fmt.Fprintf(w, "  (see Settings → %s, or `%s`)\n", ae.Action.Target, cmd)
		} else {
			fmt.Fprintf(w, "  (see Settings → %s)\n", ae.Action.Target)
		}
	}
	if inputError(ae.Code) {
		return 2
	}
	return 1
}

// sectionCommand names the command that does in a terminal what a Settings section does,
// for the way out an error points to ("" when only the window has it).
// actionCommand is the command for ae's way out: one for the error itself where the
// section's command would not help (a refused private host is allowed in a setting, not
// with a key), else the section's.
func actionCommand(ae *apperr.Error) string {
	if ae.Code == apperr.FetchBlockedAddress {
		return "cairn settings set " + webfetch.SettingAllowedHosts + " HOST"
	}
	return sectionCommand(ae.Action.Target)
}

func sectionCommand(section string) string {
	switch section {
	case "general":
		return "cairn settings"
	case "providers":
		return "cairn provider"
	case "mcp":
		return "cairn mcp"
	case "web-search":
		return "cairn secrets"
	case "about":
		return "cairn doctor"
	}
	return ""
}

// inputError: the command line or its input was wrong (exit 2), not the command's work.
func inputError(c apperr.Code) bool {
	switch c {
	case apperr.InvalidArgument, apperr.SecretNameBad, apperr.SecretNotKnown, apperr.SecretEmpty,
		apperr.ProviderPortInvalid, apperr.ProviderKeyInvalid, apperr.ProviderKeyHostMoved:
		return true
	}
	return strings.HasPrefix(string(c), "setting_")
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Usage: cairn [--data-dir DIR] [COMMAND [ARGS]]")
	fmt.Fprintln(w, "\nWith no command, cairn opens the desktop window.\n\nCommands:")
	cs := commands()
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	for _, c := range cs {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintln(w, "\nGlobal flags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// newFlags makes a subcommand flag set that prints to the env's stderr.
func newFlags(env *Env, name string) *flag.FlagSet {
	f := flag.NewFlagSet("cairn "+name, flag.ContinueOnError)
	f.SetOutput(env.Stderr)
	return f
}

// parseFlags parses a command's flags. A bad flag is a usage error (exit 2): the flag set
// has already said which flag and printed the command's flags, so nothing more is printed.
func parseFlags(f *flag.FlagSet, args []string) error {
	err := f.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return exitError{code: 2}
}

// parseInterspersed parses flags that may appear after positional arguments.
func parseInterspersed(f *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(f, args); err != nil {
			return nil, err
		}
		args = f.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// writeJSON prints v as indented JSON for --json. Strings a server or a model chose may
// hold C1 controls, bidi overrides or zero-width characters, which encoding/json writes
// as they are: termtext.JSON writes them as \u escapes, which mean the same to a reader
// of the JSON and nothing to the terminal.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termtext.JSON(b.Bytes()))
	return err
}

// width is the terminal width of stderr in columns, or 0 when stderr is not a terminal.
func (env *Env) width() int {
	w := env.Stderr
	if l, ok := w.(*lockedWriter); ok {
		w = l.w
	}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return cols
		}
	}
	return 0
}

func usageErr(format string, args ...any) error {
	return apperr.New(apperr.InvalidArgument, format, args...).WithParam("message", fmt.Sprintf(format, args...))
}

// maxSecretBytes bounds a secret read from stdin; a longer input is refused, not cut.
const maxSecretBytes = 64 << 10

// readSecret reads one secret value from stdin, never from the arguments: from a terminal
// after prompt on stderr, with the typing hidden; else all of stdin (a pipe or a file).
// The trailing newline is trimmed; a value over maxSecretBytes is refused, not cut.
// Ctrl-C at the prompt ends the command quietly (exit 130), its terminal as it was.
func readSecret(ctx context.Context, env *Env, prompt string) (string, error) {
	var b []byte
	var err error
	if f, ok := env.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(env.Stderr, prompt)
		b, err = readHidden(ctx, int(f.Fd()))
		fmt.Fprintln(env.Stderr) // the Enter the hidden line did not show
		if ctx.Err() != nil {
			return "", exitError{code: 130}
		}
		if err != nil {
			return "", fmt.Errorf("read the secret from the terminal: %w", err)
		}
	} else if b, err = io.ReadAll(io.LimitReader(env.Stdin, maxSecretBytes+3)); err != nil {
		return "", fmt.Errorf("read the secret from stdin: %w", err)
	}
	v := strings.TrimRight(string(b), "\r\n")
	if len(v) > maxSecretBytes {
		return "", usageErr("the secret is longer than %d KiB", maxSecretBytes>>10)
	}
	return v, nil
}

// hoistGlobalFlags moves --data-dir given after the subcommand (`cairn serve --data-dir X`)
// in front of it, so global flags work wherever a user types them.
func hoistGlobalFlags(args []string) []string {
	var global, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		switch {
		case a == "--data-dir" || a == "-data-dir":
			if i+1 < len(args) {
				global = append(global, a, args[i+1])
				i++
				continue
			}
		case strings.HasPrefix(a, "--data-dir=") || strings.HasPrefix(a, "-data-dir="):
			global = append(global, a)
			continue
		}
		rest = append(rest, a)
	}
	return append(global, rest...)
}

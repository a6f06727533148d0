package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/elicit"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/logring"
	"github.com/cairn-app/cairn/backend/termtext"
	"github.com/cairn-app/cairn/backend/tools"
)

// mcpCommand is one `cairn mcp` subcommand: its own flags and arguments, its own function.
type mcpCommand struct {
	name, args, summary string
	run                 func(ctx context.Context, env *Env, args []string) error
}

func mcpCommands() []mcpCommand {
	return []mcpCommand{
		{"list", "[--json]", "configured servers", mcpList},
		{"tools", "[SERVER] [--json] [--refresh]", "their tools (a server never listed is connected; --refresh re-reads every one)", mcpTools},
		{"call", "SERVER TOOL [JSON] [--json] [--save-images DIR]", "call a tool and print its result", mcpCall},
		{"approval", "SERVER TOOL ask|allow|default", "whether calls of a tool ask first (allow: never ask)", mcpApproval},
		{"enable", "SERVER [TOOL]", "turn a server, or one of its tools, on", mcpEnable},
		{"disable", "SERVER [TOOL]", "turn a server, or one of its tools, off", mcpDisable},
		{"add", "NAME [FLAGS] -- COMMAND [ARGS...] | --url URL", "add a server (--env, --header, --cwd, --root, --connect-timeout, --call-timeout, --disabled)", mcpAdd},
		{"edit", "SERVER [FLAGS] [-- COMMAND [ARGS...]]", "change what is given (those flags, --name, --url)", mcpEdit},
		{"logs", "SERVER [-n N]", "the server's log (stderr and Cairn's notes)", mcpLogs},
		{"import", "FILE|- [--json]", "import mcpServers JSON (as other desktop clients write it)", mcpImport},
		{"export", "[--include-secrets]", "print the servers as mcpServers JSON", mcpExport},
		{"test", "SERVER [--json]", "connect, list tools, disconnect", mcpTest},
		{"resources", "SERVER [--json]", "the server's resources and resource templates", mcpResources},
		{"read", "SERVER URI [--json] [--out FILE]", "read a resource (text printed; a blob to --out, or described)", mcpRead},
		{"prompts", "SERVER [--json]", "the server's prompts and their arguments", mcpPrompts},
		{"prompt", "SERVER NAME [ARG=VALUE...] [--json]", "get a prompt filled with arguments and print its messages", mcpPrompt},
		{"env", "SERVER [--json]", "the variables a stdio server starts with (names only)", mcpEnv},
		{"trust-hints", "SERVER on|off", "whether tools the server marks read-only run unasked", mcpTrustHints},
		{"login", "SERVER [--no-browser]", "sign in to a remote server (OAuth in the browser)", mcpLoginCmd},
		{"logout", "SERVER", "delete a remote server's sign-in tokens", mcpLogout},
		{"remove", "SERVER", "forget a server, its secrets and its tools", mcpRemove},
	}
}

func mcpUsage() string {
	var b strings.Builder
	b.WriteString("usage: cairn mcp COMMAND")
	for _, c := range mcpCommands() {
		fmt.Fprintf(&b, "\n  %-40s %s", c.name+" "+c.args, c.summary)
	}
	return b.String()
}

// runMCP hands `cairn mcp COMMAND …` to the command's own function.
func runMCP(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		return usageErr("%s", mcpUsage())
	}
	for _, c := range mcpCommands() {
		if c.name == args[0] {
			return c.run(ctx, env, args[1:])
		}
	}
	return usageErr("unknown mcp subcommand %s\n%s", apperr.Quote(args[0]), mcpUsage())
}

// mcpArgs is one subcommand's command line: its own flag set (a flag of another
// subcommand is refused, naming it, with this one's usage) and its positional arguments.
type mcpArgs struct {
	env  *Env
	name string
	f    *flag.FlagSet
}

func newMCPArgs(env *Env, name string) *mcpArgs {
	f := newFlags(env, "mcp "+name)
	a := &mcpArgs{env: env, name: name, f: f}
	f.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: cairn mcp %s %s\n", name, a.usageArgs())
		f.PrintDefaults()
	}
	return a
}

func (a *mcpArgs) usageArgs() string {
	for _, c := range mcpCommands() {
		if c.name == a.name {
			return c.args
		}
	}
	return ""
}

// parse parses the flags (anywhere on the line) and checks the number of arguments.
func (a *mcpArgs) parse(args []string, min, max int) ([]string, error) {
	pos, err := parseInterspersed(a.f, args)
	if err != nil {
		return nil, err
	}
	if len(pos) < min || len(pos) > max {
		return nil, usageErr("usage: cairn mcp %s %s", a.name, a.usageArgs())
	}
	return pos, nil
}

// withMCP runs f on the data directory's MCP servers: the owner's, or this process's.
func withMCP(ctx context.Context, env *Env, f func(cn *conn, m mcpBackend) error) error {
	cn, err := env.connect(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	return f(cn, cn.mcp())
}

// withServer is withMCP for a command about one server, named by id or name.
func withServer(ctx context.Context, env *Env, ref string, f func(cn *conn, m mcpBackend, id string) error) error {
	return withMCP(ctx, env, func(cn *conn, m mcpBackend) error {
		id, err := m.Resolve(ref)
		if err != nil {
			return err
		}
		return f(cn, m, id)
	})
}

func mcpList(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "list")
	asJSON := a.f.Bool("json", false, "print JSON")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	return withMCP(ctx, env, func(_ *conn, m mcpBackend) error {
		snap, err := m.Servers(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, snap.Servers)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tID\tTRANSPORT\tENABLED\tSTATE\tTOOLS\tTARGET")
		for _, v := range snap.Servers {
			target := v.URL
			if v.Transport == mcp.TransportStdio {
				target = strings.Join(append([]string{v.Command}, v.Args...), " ")
			}
			count := "-"
			if v.CachedAt > 0 {
				count = fmt.Sprint(len(v.Tools))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\t%s\n", termtext.Line(v.Name), v.ID, termtext.Line(string(v.Transport)), v.Enabled,
				mcpStateText(v.Status), count, termtext.Line(target))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		// Each failed server's reason under the table (stored: no server is connected).
		for _, v := range snap.Servers {
			if v.Status.Error != nil {
				fmt.Fprintf(env.Stdout, "%s: %s\n", termtext.Line(v.Name), termtext.Line(env.Localize(v.Status.Error)))
			}
		}
		return nil
	})
}

// mcpStateText is a server's state for `cairn mcp list`; a state an earlier Cairn
// recorded (nothing tried in this process yet) says so.
func mcpStateText(st mcp.Status) string {
	if st.Recorded {
		return string(st.State) + " (last run)"
	}
	return string(st.State)
}

// toolList is one server's tools as `mcp tools` prints them.
type toolList struct {
	Server string         `json:"server"`
	ID     string         `json:"serverId"`
	Tools  []mcp.ToolInfo `json:"tools"`
	Error  *apperr.Error  `json:"error,omitempty"`
}

func mcpTools(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "tools")
	asJSON := a.f.Bool("json", false, "print JSON")
	refresh := a.f.Bool("refresh", false, "connect and re-read every tool list first")
	pos, err := a.parse(args, 0, 1)
	if err != nil {
		return err
	}
	return withMCP(ctx, env, func(_ *conn, m mcpBackend) error {
		out, err := listTools(ctx, m, pos, *refresh)
		if err != nil {
			return err
		}
		if *asJSON {
			if err := writeJSON(env.Stdout, out); err != nil {
				return err
			}
		} else if err := printTools(env, out); err != nil {
			return err
		}
		if slices.ContainsFunc(out, func(l toolList) bool { return l.Error != nil }) {
			return exitError{code: 1}
		}
		return nil
	})
}

// listTools reads the tools of the named server (of every server without a name). A
// server whose tools were never listed is connected, as one is on --refresh: a terminal
// command is an explicit ask, not a chat start-up that must never wait.
func listTools(ctx context.Context, m mcpBackend, pos []string, refresh bool) ([]toolList, error) {
	var ids []string
	if len(pos) == 1 {
		id, err := m.Resolve(pos[0])
		if err != nil {
			return nil, err
		}
		ids = []string{id}
	} else {
		snap, err := m.Servers(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range snap.Servers {
			ids = append(ids, v.ID)
		}
	}
	out := make([]toolList, 0, len(ids))
	for _, id := range ids {
		v, err := m.View(ctx, id)
		if err != nil {
			return nil, err
		}
		l := toolList{Server: v.Name, ID: id, Tools: v.Tools}
		if v.Enabled && (refresh || v.CachedAt == 0) {
			if list, err := m.RefreshTools(ctx, id); err != nil {
				l.Error = apperr.From(err)
			} else {
				l.Tools = list
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// printTools writes the table, then each server's error under it (a table cell would
// widen its column past reading).
func printTools(env *Env, out []toolList) error {
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTOOL\tENABLED\tAPPROVAL\tWIRE NAME")
	for _, l := range out {
		for _, t := range l.Tools {
			ask := "auto"
			if t.NeedsApproval {
				ask = "ask"
			}
			if t.Approval != mcp.ApprovalDefault {
				ask += " (" + string(t.Approval) + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%s\n", termtext.Line(l.Server), termtext.Line(t.Name), t.Enabled, ask, termtext.Line(t.WireName))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range out {
		if l.Error != nil {
			fmt.Fprintf(env.Stderr, "%s: %s\n", termtext.Line(l.Server), termtext.Line(env.Localize(l.Error)))
		}
	}
	return nil
}

// callResult is a tool's result as `mcp call --json` prints it: the camelCase keys of
// every other JSON output.
type callResult struct {
	Content string          `json:"content"`
	Display json.RawMessage `json:"display,omitempty"`
	IsError bool            `json:"isError"`
	Images  []callImage     `json:"images,omitempty"`
}

// callImage is one image of a result: its bytes (base64 in JSON), and where
// --save-images wrote it.
type callImage struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"`
	Path     string `json:"path,omitempty"`
}

func mcpCall(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "call")
	asJSON := a.f.Bool("json", false, "print the result as JSON")
	saveImages := a.f.String("save-images", "", "write the images of the result to this directory")
	pos, err := a.parse(args, 2, 3)
	if err != nil {
		return err
	}
	input := "{}"
	if len(pos) == 3 {
		input = pos[2]
	}
	if !json.Valid([]byte(input)) {
		return usageErr("the arguments are not valid JSON: %s", apperr.Quote(input))
	}
	return withServer(ctx, env, pos[0], func(cn *conn, m mcpBackend, id string) error {
		// A form the server asks for while the call runs is asked on this terminal (the
		// call belongs to no session); a window may answer first.
		attendCtx, stopAttending := context.WithCancel(ctx)
		defer stopAttending()
		if err := attendForms(attendCtx, cn, env); err != nil {
			return err
		}
		res, err := m.CallTool(ctx, id, pos[1], json.RawMessage(input), func(p tools.Progress) {
			if p.Total > 0 {
				fmt.Fprintf(env.Stderr, "progress %g/%g %s\n", p.Progress, p.Total, termtext.Line(p.Message))
			} else {
				fmt.Fprintf(env.Stderr, "progress %g %s\n", p.Progress, termtext.Line(p.Message))
			}
		})
		if ctx.Err() != nil {
			return exitError{code: 130} // Ctrl-C: quiet, as `cairn chat`
		}
		if err != nil {
			return err
		}
		saved, err := saveCallImages(*saveImages, pos[1], res.Images)
		if err != nil {
			return err
		}
		if err := printCall(env, res, saved, *asJSON); err != nil {
			return err
		}
		if res.IsError {
			return exitError{code: 1}
		}
		return nil
	})
}

// attendForms answers, on the terminal, the MCP forms that belong to no session until
// ctx ends.
func attendForms(ctx context.Context, cn *conn, env *Env) error {
	term, err := approval.NewTerminalDecider(approval.ApproveAsk, env.Stdin, env.Stderr)
	if err != nil {
		return err
	}
	return cn.chat().AttendElicitations(ctx, "", elicit.NewTerminalAsker(term, env.Stderr, true), "terminal", env.Stderr)
}

// printCall prints a call's result: its text and a line per image (where it was saved),
// or the JSON of callResult.
func printCall(env *Env, res tools.Result, saved []string, asJSON bool) error {
	if asJSON {
		out := callResult{Content: res.Content, Display: res.Display, IsError: res.IsError}
		for i, im := range res.Images {
			ci := callImage{MIMEType: im.MIMEType, Data: im.Data}
			if saved != nil {
				ci.Path = saved[i]
			}
			out.Images = append(out.Images, ci)
		}
		return writeJSON(env.Stdout, out)
	}
	fmt.Fprintln(env.Stdout, termtext.Text(res.Content))
	for i, im := range res.Images {
		where := " (save them with --save-images DIR)"
		if saved != nil {
			where = ", saved at " + termtext.Line(saved[i])
		}
		fmt.Fprintf(env.Stdout, "[image %d of %d: %s, %d bytes%s]\n", i+1, len(res.Images), termtext.Line(im.MIMEType), len(im.Data), where)
	}
	return nil
}

// saveCallImages writes a call's images, whole, to dir as <tool>-<n>.<ext> (nil when dir
// is empty), so `cairn mcp call … --save-images DIR` hands a screenshot on as a file.
func saveCallImages(dir, tool string, imgs []tools.Image) ([]string, error) {
	if dir == "" || len(imgs) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "create %s", dir)
	}
	base := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r < ' ' {
			return '_'
		}
		return r
	}, tool)
	out := make([]string, 0, len(imgs))
	for i, im := range imgs {
		path := filepath.Join(dir, fmt.Sprintf("%s-%d%s", base, i+1, tools.ImageExt(im.MIMEType)))
		if err := os.WriteFile(path, im.Data, 0o644); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "write %s", path)
		}
		out = append(out, path)
	}
	return out, nil
}

// toolOf finds a tool of a server by its own name or its wire name. A server whose tools
// were never listed is connected first, as `mcp tools` does.
func toolOf(ctx context.Context, m mcpBackend, id, ref string) (string, error) {
	v, err := m.View(ctx, id)
	if err != nil {
		return "", err
	}
	list := v.Tools
	if v.CachedAt == 0 && v.Enabled {
		if list, err = m.RefreshTools(ctx, id); err != nil {
			return "", err
		}
	}
	for _, t := range list {
		if t.Name == ref || t.WireName == ref {
			return t.Name, nil
		}
	}
	return "", apperr.New(apperr.ToolNotFound, "%s has no tool %s (`cairn mcp tools %s` lists them)", v.Name, apperr.Quote(ref), v.Name).
		WithParam("name", ref)
}

func mcpApproval(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "approval")
	pos, err := a.parse(args, 3, 3)
	if err != nil {
		return err
	}
	choice := mcp.Approval(pos[2])
	switch pos[2] {
	case "ask", "allow":
	case "default":
		choice = mcp.ApprovalDefault
	default:
		return usageErr("cairn mcp approval: say ask, allow or default, not %s", apperr.Quote(pos[2]))
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		tool, err := toolOf(ctx, m, id, pos[1])
		if err != nil {
			return err
		}
		v, err := m.SetToolApproval(ctx, id, tool, choice)
		if err != nil {
			return err
		}
		for _, t := range v.Tools {
			if t.Name == tool {
				inForce := "runs without asking"
				if t.NeedsApproval {
					inForce = "asks before it runs"
				}
				fmt.Fprintf(env.Stdout, "%s %s: %s (%s)\n", termtext.Line(v.Name), termtext.Line(tool), inForce, pos[2])
			}
		}
		return nil
	})
}

func mcpEnable(ctx context.Context, env *Env, args []string) error {
	return mcpSwitch(ctx, env, "enable", args, true)
}

func mcpDisable(ctx context.Context, env *Env, args []string) error {
	return mcpSwitch(ctx, env, "disable", args, false)
}

// mcpSwitch is enable / disable: a whole server, or one of its tools.
func mcpSwitch(ctx context.Context, env *Env, name string, args []string, on bool) error {
	a := newMCPArgs(env, name)
	pos, err := a.parse(args, 1, 2)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		if len(pos) == 1 {
			v, err := m.SetEnabled(ctx, id, on)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s: enabled=%v\n", termtext.Line(v.Name), v.Enabled)
			return nil
		}
		tool, err := toolOf(ctx, m, id, pos[1])
		if err != nil {
			return err
		}
		v, err := m.SetToolEnabled(ctx, id, tool, on)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s %s: enabled=%v\n", termtext.Line(v.Name), termtext.Line(tool), on)
		return nil
	})
}

func mcpLogs(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "logs")
	lines := a.f.Int("n", 100, "how many lines")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(cn *conn, _ mcpBackend, id string) error {
		text, err := logring.ReadFile(mcp.LogFile(cn.dir, id), *lines)
		if os.IsNotExist(err) {
			fmt.Fprintln(env.Stderr, "no log yet: the server has not run")
			return nil
		}
		if err != nil {
			return apperr.Wrap(err, apperr.Internal, "read log")
		}
		for _, l := range text {
			fmt.Fprintln(env.Stdout, termtext.Text(l))
		}
		return nil
	})
}

func mcpImport(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "import")
	asJSON := a.f.Bool("json", false, "print the report as JSON")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var data []byte
	if pos[0] == "-" {
		data, err = io.ReadAll(io.LimitReader(env.Stdin, 8<<20))
	} else {
		data, err = os.ReadFile(pos[0])
	}
	if err != nil {
		return apperr.Wrap(err, apperr.MCPImportInvalid, "read %s", pos[0]).WithParam("message", err.Error())
	}
	return withMCP(ctx, env, func(_ *conn, m mcpBackend) error {
		rep, err := m.Import(ctx, data)
		if err != nil {
			return err
		}
		if *asJSON {
			if err := writeJSON(env.Stdout, rep); err != nil {
				return err
			}
		} else {
			printImport(env, rep)
		}
		if rep.Rejected > 0 {
			return exitError{code: 1}
		}
		return nil
	})
}

func printImport(env *Env, rep mcp.ImportReport) {
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	for _, e := range rep.Entries {
		why := e.Reason
		if e.Error != nil {
			why = env.Localize(e.Error)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.Line(e.Name), e.Status, termtext.Line(why))
	}
	tw.Flush()
	for _, e := range rep.Entries {
		for _, w := range e.Warnings {
			fmt.Fprintf(env.Stderr, "warning: %s\n", termtext.Line(env.Localize(w)))
		}
	}
	fmt.Fprintf(env.Stdout, "%d imported, %d updated, %d unchanged, %d rejected\n", rep.Imported, rep.Updated, rep.Unchanged, rep.Rejected)
}

func mcpExport(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "export")
	withSecrets := a.f.Bool("include-secrets", false, "include secret values")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	return withMCP(ctx, env, func(_ *conn, m mcpBackend) error {
		ex, err := m.Export(ctx, *withSecrets)
		if err != nil {
			return err
		}
		env.Stdout.Write(termtext.JSON([]byte(ex.JSON)))
		for _, w := range ex.WithheldSecrets {
			fmt.Fprintf(env.Stderr, "withheld (secret): %s — use --include-secrets to export it\n", termtext.Line(w))
		}
		return nil
	})
}

func mcpTest(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "test")
	asJSON := a.f.Bool("json", false, "print the report as JSON")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		v, err := m.View(ctx, id)
		if err != nil {
			return err
		}
		rep, err := m.Test(ctx, mcp.Server{ID: id, Name: v.Name})
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, rep)
		}
		for _, l := range rep.Log {
			fmt.Fprintf(env.Stderr, "%s %s\n", l.Stream, termtext.Text(l.Text))
		}
		if !rep.OK {
			return rep.Error
		}
		via := string(rep.Transport)
		if rep.FallbackStatus != 0 {
			via += fmt.Sprintf(" (Streamable HTTP answered %d)", rep.FallbackStatus)
		}
		fmt.Fprintf(env.Stdout, "ok: %s %s over %s in %d ms, %d tools: %s\n", termtext.Line(rep.ServerInfo.Name), termtext.Line(rep.ServerInfo.Version),
			via, rep.DurationMs, len(rep.Tools), termtext.Line(strings.Join(rep.Tools, ", ")))
		return nil
	})
}

func mcpEnv(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "env")
	asJSON := a.f.Bool("json", false, "print JSON")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		vars, err := m.Environment(ctx, id)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, vars)
		}
		for _, v := range vars {
			fmt.Fprintf(env.Stdout, "%s\t%s\n", termtext.Line(v.Name), termtext.Line(string(v.Source)))
		}
		return nil
	})
}

func mcpTrustHints(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "trust-hints")
	pos, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	if pos[1] != "on" && pos[1] != "off" {
		return usageErr("cairn mcp trust-hints: say on or off, not %s", apperr.Quote(pos[1]))
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		v, err := m.SetTrustReadOnlyHints(ctx, id, pos[1] == "on")
		if err != nil {
			return err
		}
		if *v.TrustReadOnlyHints {
			fmt.Fprintf(env.Stdout, "%s: tools it marks read-only run without asking\n", termtext.Line(v.Name))
		} else {
			fmt.Fprintf(env.Stdout, "%s: its read-only marks are not trusted; its tools ask like any other\n", termtext.Line(v.Name))
		}
		return nil
	})
}

func mcpLoginCmd(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "login")
	noBrowser := a.f.Bool("no-browser", false, "print the sign-in page, do not open a browser")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(cn *conn, _ mcpBackend, id string) error {
		return cn.login(ctx, env, id, !*noBrowser)
	})
}

func mcpLogout(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "logout")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		v, err := m.SignOut(ctx, id)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s: signed out (the tokens were deleted)\n", termtext.Line(v.Name))
		return nil
	})
}

func mcpRemove(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "remove")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		return m.Delete(ctx, id)
	})
}

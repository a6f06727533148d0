package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/logring"
	"github.com/cairn-app/cairn/backend/termtext"
	"github.com/cairn-app/cairn/backend/tools"
)

const mcpUsage = `usage: cairn mcp COMMAND
  list [--json]                      configured servers
  tools [SERVER] [--json] [--refresh] cached tools (--refresh connects and re-reads them)
  call SERVER TOOL JSON              call a tool and print its result
  logs SERVER [-n N]                 the server's log (stderr and Cairn's notes)
  import FILE|-                      import mcpServers JSON (as other desktop clients write it)
  export [--include-secrets]         print the servers as mcpServers JSON
  test SERVER                        connect, list tools, disconnect
  env SERVER [--json]                the variables a stdio server starts with (names only)
  trust-hints SERVER on|off          whether tools the server marks read-only run unasked
  login SERVER [--no-browser]        sign in to a remote server (OAuth in the browser)
  logout SERVER                      delete a remote server's sign-in tokens
  enable SERVER | disable SERVER | remove SERVER`

func runMCP(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "mcp")
	asJSON := f.Bool("json", false, "print JSON")
	refresh := f.Bool("refresh", false, "tools: connect and re-read the tool lists first")
	lines := f.Int("n", 100, "logs: how many lines")
	withSecrets := f.Bool("include-secrets", false, "export: include secret values")
	noBrowser := f.Bool("no-browser", false, "login: print the sign-in page, do not open a browser")
	saveImages := f.String("save-images", "", "call: write the images of the result to this directory")
	pos, err := parseInterspersed(f, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr("%s", mcpUsage)
	}
	cn, err := env.connect(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	m := cn.mcp()
	arg := func(i int, what string) (string, error) {
		if len(pos) <= i {
			return "", usageErr("cairn mcp %s: missing %s\n%s", pos[0], what, mcpUsage)
		}
		return pos[i], nil
	}
	server := func() (string, error) {
		name, err := arg(1, "SERVER")
		if err != nil {
			return "", err
		}
		return m.Resolve(name)
	}

	switch pos[0] {
	case "list":
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
			tools := "-"
			if v.CachedAt > 0 {
				tools = fmt.Sprint(len(v.Tools))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\t%s\n", termtext.Line(v.Name), v.ID, termtext.Line(string(v.Transport)), v.Enabled,
				mcpStateText(v.Status), tools, termtext.Line(target))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, v := range snap.Servers {
			if v.Status.Error != nil {
				fmt.Fprintf(env.Stdout, "%s: %s\n", termtext.Line(v.Name), termtext.Line(env.Localize(v.Status.Error)))
			}
		}
		return nil

	case "tools":
		var ids []string
		if len(pos) > 1 {
			id, err := server()
			if err != nil {
				return err
			}
			ids = []string{id}
		} else {
			snap, err := m.Servers(ctx)
			if err != nil {
				return err
			}
			for _, v := range snap.Servers {
				ids = append(ids, v.ID)
			}
		}
		type entry struct {
			Server string         `json:"server"`
			ID     string         `json:"serverId"`
			Tools  []mcp.ToolInfo `json:"tools"`
			Error  *apperr.Error  `json:"error,omitempty"`
		}
		var out []entry
		for _, id := range ids {
			v, err := m.View(ctx, id)
			if err != nil {
				return err
			}
			e := entry{Server: v.Name, ID: id, Tools: v.Tools}
			if *refresh && v.Enabled {
				list, err := m.RefreshTools(ctx, id)
				if err != nil {
					e.Error = apperr.From(err)
				} else {
					e.Tools = list
				}
			}
			out = append(out, e)
		}
		failed := 0
		for _, e := range out {
			if e.Error != nil {
				failed++
			}
		}
		if *asJSON {
			if err := writeJSON(env.Stdout, out); err != nil || failed == 0 {
				return err
			}
			return exitError{code: 1}
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVER\tTOOL\tENABLED\tAPPROVAL\tWIRE NAME")
		for _, e := range out {
			for _, t := range e.Tools {
				ask := "auto"
				if t.NeedsApproval {
					ask = "ask"
				}
				fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%s\n", termtext.Line(e.Server), termtext.Line(t.Name), t.Enabled, ask, termtext.Line(t.WireName))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if failed == 0 {
			return nil
		}
		// The refresh of some server failed: say which and why under the table, and exit
		// non-zero so a script sees it (the tools shown for it are the cached ones).
		for _, e := range out {
			if e.Error != nil {
				fmt.Fprintf(env.Stderr, "%s: %s\n", termtext.Line(e.Server), termtext.Line(env.Localize(e.Error)))
			}
		}
		return exitError{code: 1}

	case "call":
		id, err := server()
		if err != nil {
			return err
		}
		tool, err := arg(2, "TOOL")
		if err != nil {
			return err
		}
		args := "{}"
		if len(pos) > 3 {
			args = pos[3]
		}
		if !json.Valid([]byte(args)) {
			return usageErr("the arguments are not valid JSON: %s", apperr.Quote(args))
		}
		res, err := m.CallTool(ctx, id, tool, json.RawMessage(args), func(p tools.Progress) {
			if p.Total > 0 {
				fmt.Fprintf(env.Stderr, "progress %g/%g %s\n", p.Progress, p.Total, termtext.Line(p.Message))
			} else {
				fmt.Fprintf(env.Stderr, "progress %g %s\n", p.Progress, termtext.Line(p.Message))
			}
		})
		if err != nil {
			return err
		}
		saved, err := saveCallImages(*saveImages, tool, res.Images)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, res)
		}
		fmt.Fprintln(env.Stdout, termtext.Text(res.Content))
		for i, im := range res.Images {
			where := " (save them with --save-images DIR)"
			if saved != nil {
				where = ", saved at " + termtext.Line(saved[i])
			}
			fmt.Fprintf(env.Stdout, "[image %d of %d: %s, %d bytes%s]\n", i+1, len(res.Images), termtext.Line(im.MIMEType), len(im.Data), where)
		}
		if res.IsError {
			return exitError{code: 1}
		}
		return nil

	case "logs":
		id, err := server()
		if err != nil {
			return err
		}
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

	case "import":
		file, err := arg(1, "FILE")
		if err != nil {
			return err
		}
		var data []byte
		if file == "-" {
			data, err = io.ReadAll(io.LimitReader(env.Stdin, 8<<20))
		} else {
			data, err = os.ReadFile(file)
		}
		if err != nil {
			return apperr.Wrap(err, apperr.MCPImportInvalid, "read %s", file).WithParam("message", err.Error())
		}
		rep, err := m.Import(ctx, data)
		if err != nil {
			return err
		}
		if *asJSON {
			if err := writeJSON(env.Stdout, rep); err != nil {
				return err
			}
		} else {
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
		if rep.Rejected > 0 {
			return exitError{code: 1}
		}
		return nil

	case "export":
		ex, err := m.Export(ctx, *withSecrets)
		if err != nil {
			return err
		}
		env.Stdout.Write(termtext.JSON([]byte(ex.JSON)))
		for _, w := range ex.WithheldSecrets {
			fmt.Fprintf(env.Stderr, "withheld (secret): %s — use --include-secrets to export it\n", termtext.Line(w))
		}
		return nil

	case "test":
		id, err := server()
		if err != nil {
			return err
		}
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

	case "env":
		id, err := server()
		if err != nil {
			return err
		}
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

	case "trust-hints":
		id, err := server()
		if err != nil {
			return err
		}
		state, err := arg(2, "on|off")
		if err != nil {
			return err
		}
		if state != "on" && state != "off" {
			return usageErr("cairn mcp trust-hints: say on or off, not %q\n%s", state, mcpUsage)
		}
		v, err := m.SetTrustReadOnlyHints(ctx, id, state == "on")
		if err != nil {
			return err
		}
		if *v.TrustReadOnlyHints {
			fmt.Fprintf(env.Stdout, "%s: tools it marks read-only run without asking\n", v.Name)
		} else {
			fmt.Fprintf(env.Stdout, "%s: its read-only marks are not trusted; its tools ask like any other\n", v.Name)
		}
		return nil

	case "enable", "disable":
		id, err := server()
		if err != nil {
			return err
		}
		v, err := m.SetEnabled(ctx, id, pos[0] == "enable")
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s: enabled=%v\n", termtext.Line(v.Name), v.Enabled)
		return nil

	case "remove":
		id, err := server()
		if err != nil {
			return err
		}
		return m.Delete(ctx, id)

	case "login":
		id, err := server()
		if err != nil {
			return err
		}
		return cn.login(ctx, env, id, !*noBrowser)

	case "logout":
		id, err := server()
		if err != nil {
			return err
		}
		v, err := m.SignOut(ctx, id)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s: signed out (the tokens were deleted)\n", termtext.Line(v.Name))
		return nil
	}
	return usageErr("unknown mcp subcommand %s\n%s", apperr.Quote(pos[0]), mcpUsage)
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

// mcpStateText is a server's state for `cairn mcp list`; a state an earlier Cairn
// recorded (nothing tried in this process yet) says so.
func mcpStateText(st mcp.Status) string {
	if st.Recorded {
		return string(st.State) + " (last run)"
	}
	return string(st.State)
}

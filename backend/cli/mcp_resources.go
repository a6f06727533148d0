package cli

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/termtext"
)

// `cairn mcp resources|read|prompts|prompt`: a server's resources and prompts, read live
// through mcpBackend (the owner's connection when one runs, else this process's).

func mcpResources(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "resources")
	asJSON := a.f.Bool("json", false, "print JSON")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		list, err := m.Resources(ctx, id)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, list)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "URI\tNAME\tMIME\tDESCRIPTION")
		for _, r := range list.Resources {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.Line(r.URI), termtext.Line(r.Name), termtext.Line(r.MIMEType), termtext.Summary(termtext.Line(r.Description), 60))
		}
		for _, t := range list.Templates {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.Line(t.URITemplate), termtext.Line(t.Name)+" (template)", termtext.Line(t.MIMEType), termtext.Summary(termtext.Line(t.Description), 60))
		}
		return tw.Flush()
	})
}

func mcpRead(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "read")
	asJSON := a.f.Bool("json", false, "print JSON (blobs base64)")
	out := a.f.String("out", "", "write the resource's bytes to this file")
	pos, err := a.parse(args, 2, 2)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		contents, err := m.ReadResource(ctx, id, pos[1])
		if err != nil {
			return err
		}
		if *out != "" {
			return writeResource(*out, contents)
		}
		if *asJSON {
			return writeJSON(env.Stdout, contents)
		}
		for _, c := range contents {
			if c.Blob != "" {
				fmt.Fprintf(env.Stdout, "[blob %s %s, %d bytes; --out FILE writes it]\n", termtext.Line(c.URI), termtext.Line(c.MIMEType), c.Size)
				continue
			}
			fmt.Fprintln(env.Stdout, termtext.Text(c.Text))
		}
		return nil
	})
}

// writeResource writes the contents' bytes (text as is, blobs decoded) to path.
func writeResource(path string, contents []mcp.ResourceContent) error {
	var b []byte
	for _, c := range contents {
		if c.Blob == "" {
			b = append(b, c.Text...)
			continue
		}
		d, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil {
			return fmt.Errorf("decode %s: %w", c.URI, err)
		}
		b = append(b, d...)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func mcpPrompts(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "prompts")
	asJSON := a.f.Bool("json", false, "print JSON")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		ps, err := m.Prompts(ctx, id)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, ps)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tARGUMENTS\tDESCRIPTION")
		for _, p := range ps {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.Line(p.Name), promptArgs(p.Arguments), termtext.Summary(termtext.Line(p.Description), 60))
		}
		return tw.Flush()
	})
}

// promptArgs is "city state?": an optional argument ends in "?".
func promptArgs(args []mcp.PromptArg) string {
	if len(args) == 0 {
		return "-"
	}
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = termtext.Line(a.Name)
		if !a.Required {
			names[i] += "?"
		}
	}
	return strings.Join(names, " ")
}

func mcpPrompt(ctx context.Context, env *Env, args []string) error {
	a := newMCPArgs(env, "prompt")
	asJSON := a.f.Bool("json", false, "print JSON")
	pos, err := a.parse(args, 2, 1<<16)
	if err != nil {
		return err
	}
	vals := map[string]string{}
	for _, kv := range pos[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageErr("cairn mcp prompt: an argument is NAME=VALUE, not %s", kv)
		}
		vals[k] = v
	}
	return withServer(ctx, env, pos[0], func(_ *conn, m mcpBackend, id string) error {
		res, err := m.GetPrompt(ctx, id, pos[1], vals)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.Stdout, res)
		}
		for _, msg := range res.Messages {
			fmt.Fprintf(env.Stdout, "%s: %s\n", termtext.Line(msg.Role), termtext.Text(msg.Text))
		}
		return nil
	})
}

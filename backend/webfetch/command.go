package webfetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/termtext"
)

// Command is `cairn fetch [--json] URL`: the page as the model would read it, or as JSON.
// base configures the fetcher (its zero value for Cairn itself); links reads through the
// selected search provider (nil: Cairn's fetcher only), called with the command's services
// once they are open.
func Command(base Options, links func(env capability.Env) LinkParser) capability.Command {
	return capability.Command{
		Name:    "fetch",
		Summary: "read a web page as Markdown: fetch [--json] URL",
		Run: func(ctx context.Context, t capability.Terminal, args []string) error {
			fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
			fs.SetOutput(t.Stderr)
			asJSON := fs.Bool("json", false, "print the page as JSON")
			fs.Usage = func() {
				fmt.Fprintln(t.Stderr, "Usage: cairn fetch [--json] URL")
				fs.PrintDefaults()
			}
			if err := fs.Parse(args); err != nil {
				if errors.Is(err, flag.ErrHelp) {
					return err
				}
				return usage("fetch: %v", err)
			}
			if fs.NArg() != 1 {
				fs.Usage()
				return usage("fetch takes one URL")
			}
			env, err := t.Open(ctx)
			if err != nil {
				return err
			}
			var lp LinkParser
			if links != nil {
				lp = links(env)
			}
			var st Settings
			if env.Settings != nil {
				st = env.Settings
			}
			p, err := NewReader(base, st, lp).Read(ctx, fs.Arg(0))
			if err != nil {
				return err
			}
			return printPage(t.Stdout, p, *asJSON)
		},
	}
}

func usage(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return apperr.New(apperr.InvalidArgument, "%s", msg).WithParam("message", msg)
}

// printPage writes a page a stranger wrote to a terminal: its control, bidi and invisible
// characters escaped, so it can only be read, never act on the terminal.
func printPage(w io.Writer, p Page, asJSON bool) error {
	if asJSON {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return err
		}
		_, err := w.Write(termtext.JSON(b.Bytes()))
		return err
	}
	_, err := fmt.Fprintln(w, termtext.Text(p.Text()))
	return err
}

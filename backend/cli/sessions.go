package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/privfile"
	"github.com/cairn-app/cairn/backend/termtext"
	"github.com/cairn-app/cairn/backend/transfer"
)

// transferBackend is what `cairn sessions export|import` needs: the transfer service
// over this process's services, or the owner's through the facade.
type transferBackend interface {
	Export(ctx context.Context, id, format string, opt transfer.ExportOptions) (transfer.File, error)
	ExportAll(ctx context.Context, opt transfer.ExportOptions) (transfer.File, error)
	Import(ctx context.Context, name string, data []byte) (transfer.ImportReport, error)
}

func (c *conn) transfer() transferBackend {
	if c.remote != nil {
		return remoteTransfer{c}
	}
	return transfer.New(c.local.Chat, c.local.Files, c.local.DataDir, "Cairn "+buildinfo.Get().Version)
}

type remoteTransfer struct{ c *conn }

func (r remoteTransfer) Export(ctx context.Context, id, format string, opt transfer.ExportOptions) (out transfer.File, err error) {
	return out, r.c.remote.Call(ctx, "ExportSession", &out, id, format, opt)
}

func (r remoteTransfer) ExportAll(ctx context.Context, opt transfer.ExportOptions) (out transfer.File, err error) {
	return out, r.c.remote.Call(ctx, "ExportAllSessions", &out, opt)
}

func (r remoteTransfer) Import(ctx context.Context, name string, data []byte) (out transfer.ImportReport, err error) {
	return out, r.c.remote.Call(ctx, "ImportConversations", &out, name, data)
}

// runSessionsTransfer is `cairn sessions export|import`.
func runSessionsTransfer(ctx context.Context, env *Env, sub string, args []string) error {
	f := newFlags(env, "sessions "+sub)
	format := f.String("format", "md", "export format: md (to read) or json (complete)")
	out := f.String("o", "", "write to this file (default: stdout; required with --all)")
	all := f.Bool("all", false, "export every conversation into a zip")
	reasoning := f.Bool("reasoning", false, "include reasoning in Markdown")
	asJSON := f.Bool("json", false, "print the import report as JSON")
	pos, err := parseInterspersed(f, args)
	if err != nil {
		return err
	}
	if sub == "import" {
		if len(pos) != 1 {
			return usageErr("usage: cairn sessions import FILE [--json]")
		}
		return importSessions(ctx, env, pos[0], *asJSON)
	}
	if *all == (len(pos) == 1) || len(pos) > 1 || (*all && *out == "") {
		return usageErr("usage: cairn sessions export ID [--format md|json] [-o FILE] | export --all -o FILE.zip")
	}
	cn, err := env.connect(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	opt := transfer.ExportOptions{Reasoning: *reasoning}
	var file transfer.File
	if *all {
		file, err = cn.transfer().ExportAll(ctx, opt)
	} else {
		file, err = cn.transfer().Export(ctx, pos[0], *format, opt)
	}
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = env.Stdout.Write(file.Data)
		return err
	}
	if err := privfile.Write(*out, file.Data); err != nil {
		return apperr.Wrap(err, apperr.FileSaveFailed, "write %s", *out).WithParam("path", *out).WithParam("message", err.Error())
	}
	fmt.Fprintf(env.Stderr, "wrote %s (%d bytes)\n", *out, len(file.Data))
	return nil
}

func importSessions(ctx context.Context, env *Env, path string, asJSON bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return apperr.Wrap(err, apperr.ImportInvalid, "read %s", path).WithParam("file", path).WithParam("message", errText(err))
	}
	cn, err := env.connect(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	rep, err := cn.transfer().Import(ctx, filepath.Base(path), data)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(env.Stdout, rep)
	}
	for _, it := range rep.Items {
		if it.Status == transfer.StatusImported {
			fmt.Fprintf(env.Stdout, "imported  %s  %s (%d messages)\n", it.SessionID, termtext.Line(it.Title), it.Messages)
		} else {
			fmt.Fprintf(env.Stdout, "skipped   %s: %s %s\n", termtext.Line(it.Title), it.Reason, termtext.Line(it.Detail))
		}
	}
	fmt.Fprintf(env.Stdout, "%d imported, %d skipped (%s)\n", rep.Imported, rep.Skipped, rep.Source)
	return nil
}

// errText is an error without Go's "open /path:" prefix.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// runSessions is `cairn sessions`: export, import and search of conversations.
func runSessions(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		return usageErr("usage: cairn sessions export ID [--format md|json] [-o FILE] | export --all -o FILE.zip | import FILE | search QUERY [--json]")
	}
	switch args[0] {
	case "export", "import":
		return runSessionsTransfer(ctx, env, args[0], args[1:])
	case "search":
		return runSessionsSearch(ctx, env, args[1:])
	}
	return usageErr("unknown sessions subcommand %s (export, import, search)", apperr.Quote(args[0]))
}

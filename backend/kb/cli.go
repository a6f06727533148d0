package kb

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/termtext"
)

const usage = `usage:
  cairn kb list [--json]
  cairn kb create NAME [--embedding PROVIDER/MODEL] [--chunk-size N] [--overlap N]
  cairn kb add NAME PATH… [--ignore GLOB]…   (waits until the files are indexed)
  cairn kb text NAME TITLE TEXT
  cairn kb search NAME QUERY [--top N] [--json]
  cairn kb files NAME [--json]
  cairn kb retry NAME FILE-ID|all
  cairn kb rename NAME NEW-NAME
  cairn kb rm NAME`

func command() capability.Command {
	return capability.Command{Name: "kb", Summary: "knowledge bases: create, add files, search, list files, remove",
		Run: func(ctx context.Context, term capability.Terminal, args []string) error {
			if len(args) == 0 {
				return apperr.New(apperr.InvalidArgument, "%s", usage)
			}
			return capability.OnService(ctx, term, OpenEnv, func(svc *Service) error {
				return RunCommand(ctx, svc, term.Dir, args, term.Stdout, term.Stderr)
			})
		}}
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// cmdFlags are every subcommand's flags; each subcommand reads those it has.
type cmdFlags struct {
	json               bool
	embedding          string
	size, overlap, top int
	ignore             multi
}

// RunCommand runs `cairn kb ARGS` on svc; relative paths start in dir (the terminal's).
func RunCommand(ctx context.Context, svc *Service, dir string, args []string, stdout, stderr io.Writer) error {
	f := flag.NewFlagSet("kb", flag.ContinueOnError)
	f.SetOutput(stderr)
	var o cmdFlags
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.StringVar(&o.embedding, "embedding", "", "PROVIDER/MODEL of an OpenAI-compatible embeddings endpoint")
	f.IntVar(&o.size, "chunk-size", 0, "chunk size in tokens (512)")
	f.IntVar(&o.overlap, "overlap", 0, "overlap in tokens (64)")
	f.IntVar(&o.top, "top", 0, "how many results (8)")
	f.Var(&o.ignore, "ignore", "glob of names or relative paths to skip in folders")
	pos, err := interspersed(f, args)
	if err != nil {
		return apperr.Wrap(err, apperr.InvalidArgument, "%s", usage)
	}
	if len(pos) == 0 {
		return apperr.New(apperr.InvalidArgument, "%s", usage)
	}
	sub, rest := pos[0], pos[1:]
	need := map[string]int{"list": 0, "create": 1, "add": 2, "text": 3, "search": 2, "files": 1, "retry": 2, "rename": 2, "rm": 1}
	n, ok := need[sub]
	if !ok || len(rest) < n {
		return apperr.New(apperr.InvalidArgument, "%s", usage)
	}
	if sub == "add" && dir != "" {
		for i, p := range rest[1:] {
			if !filepath.IsAbs(p) {
				rest[1+i] = filepath.Join(dir, p)
			}
		}
	}
	return runSub(ctx, svc, sub, rest, o, stdout)
}

func runSub(ctx context.Context, svc *Service, sub string, rest []string, o cmdFlags, out io.Writer) error {
	switch sub {
	case "list":
		kbs, err := svc.List(ctx)
		return show(out, o.json, kbs, err, func() string { return formatKBs(kbs) })
	case "create":
		k, err := svc.Create(ctx, CreateInput{Name: rest[0], Embedding: o.embedding, ChunkSize: o.size, ChunkOverlap: o.overlap})
		return show(out, o.json, k, err, func() string { return "created knowledge base " + k.Name + "\n" })
	case "add":
		return addCmd(ctx, svc, rest[0], rest[1:], o, out)
	case "text":
		fl, err := svc.AddText(ctx, rest[0], rest[1], strings.Join(rest[2:], " "))
		if err == nil {
			err = svc.WaitIdle(ctx, nil)
		}
		return show(out, o.json, fl, err, func() string { return "added " + fl.Name + "\n" })
	case "search":
		hits, err := svc.Search(ctx, SearchRequest{Query: strings.Join(rest[1:], " "), TopK: o.top, KBs: []string{rest[0]}})
		return show(out, o.json, hits, err, func() string { return FormatHits(strings.Join(rest[1:], " "), hits) + "\n" })
	case "files":
		files, err := svc.Files(ctx, rest[0])
		return show(out, o.json, files, err, func() string { return formatFiles(files) })
	case "retry":
		err := retryCmd(ctx, svc, rest[0], rest[1])
		return show(out, o.json, map[string]bool{"ok": err == nil}, err, func() string { return "queued\n" })
	case "rename":
		k, err := svc.Rename(ctx, rest[0], rest[1])
		return show(out, o.json, k, err, func() string { return "renamed to " + k.Name + "\n" })
	default: // rm
		err := svc.Delete(ctx, rest[0])
		return show(out, o.json, map[string]bool{"ok": err == nil}, err, func() string { return "removed " + rest[0] + "\n" })
	}
}

func retryCmd(ctx context.Context, svc *Service, kb, file string) error {
	if file == "all" {
		return svc.ReindexAll(ctx, kb)
	}
	if err := svc.Retry(ctx, file); err != nil {
		return err
	}
	return svc.WaitIdle(ctx, nil)
}

func addCmd(ctx context.Context, svc *Service, kb string, paths []string, o cmdFlags, out io.Writer) error {
	files, err := svc.AddPaths(ctx, kb, paths, AddOptions{Ignore: o.ignore})
	if err != nil {
		return err
	}
	tick := func() {
		if o.json {
			return
		}
		k, _ := svc.Get(ctx, kb)
		fs, _ := svc.Files(ctx, k.ID)
		done := 0
		for _, f := range fs {
			if f.State == StateDone || f.State == StateError {
				done++
			}
		}
		fmt.Fprintf(out, "\rindexing %d/%d files", done, len(fs))
	}
	if err := svc.WaitIdle(ctx, tick); err != nil {
		return err
	}
	for i, f := range files {
		if got, err := svc.File(ctx, f.ID); err == nil {
			files[i] = got
		}
	}
	if !o.json {
		fmt.Fprint(out, "\r")
	}
	return show(out, o.json, files, nil, func() string { return formatFiles(files) })
}

func show(out io.Writer, asJSON bool, v any, err error, text func() string) error {
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err = io.WriteString(out, termtext.Text(text()))
	return err
}

func formatKBs(kbs []KB) string {
	var b strings.Builder
	for _, k := range kbs {
		emb := "keywords only"
		if k.HasEmbedding() {
			emb = k.EmbedProvider + "/" + k.EmbedModel
		}
		fmt.Fprintf(&b, "%s\t%s\tchunks %d/%d\n", k.Name, emb, k.ChunkSize, k.ChunkOverlap)
	}
	return b.String()
}

func formatFiles(files []File) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%d chunks", f.ID, f.State, f.Name, f.Chunks)
		if f.ErrorMessage != "" {
			fmt.Fprintf(&b, "\t%s", f.ErrorMessage)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// interspersed parses flags anywhere among the arguments ("cairn kb search docs go --json").
func interspersed(f *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
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

package websearch

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/termtext"
)

// CommandSummary is `cairn search`'s line in `cairn help`.
const CommandSummary = "[--provider P] [--count N] [--freshness day|week|month|year] [--site D] [--json] QUERY: search the web"

// RunCommand is `cairn search`: one search through svc, printed for a terminal (every text
// from the web escaped) or as JSON.
func RunCommand(ctx context.Context, svc *Service, args []string, stdout, stderr io.Writer) error {
	f := flag.NewFlagSet("search", flag.ContinueOnError)
	f.SetOutput(stderr)
	provider := f.String("provider", "", "ask this provider only: "+strings.Join(IDs(), ", "))
	count := f.Int("count", 0, "how many results (1-20, default 8)")
	fresh := f.String("freshness", "", "day, week, month or year")
	site := f.String("site", "", "only results from this domain")
	asJSON := f.Bool("json", false, "print JSON")
	pos, err := interspersed(f, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return apperr.New(apperr.InvalidArgument, "usage: cairn search %s", CommandSummary)
	}
	r, err := SearchArgs{Query: strings.Join(pos, " "), Count: *count, Freshness: *fresh, Site: *site}.Request()
	if err != nil {
		return err
	}
	r.Provider = strings.TrimSpace(*provider)
	ans, err := svc.Search(ctx, r)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ans)
	}
	_, err = io.WriteString(stdout, termtext.Text(FormatAnswer(ans)))
	return err
}

// interspersed parses flags anywhere among the arguments ("cairn search go --json").
func interspersed(f *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, apperr.New(apperr.InvalidArgument, "%v", err)
		}
		args = f.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

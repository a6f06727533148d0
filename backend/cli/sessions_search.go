package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/termtext"
)

// searchBackend is what `cairn sessions search` needs: the chat service here, or the
// owner's through the facade call a window makes.
type searchBackend interface {
	SearchMessages(ctx context.Context, query string) (chat.SearchResult, error)
}

func (c *conn) search() searchBackend {
	if c.remote != nil {
		return remoteSearch{c}
	}
	return c.local.Chat
}

type remoteSearch struct{ c *conn }

func (r remoteSearch) SearchMessages(ctx context.Context, query string) (out chat.SearchResult, err error) {
	return out, r.c.remote.Call(ctx, "SearchMessages", &out, query)
}

// runSessionsSearch is `cairn sessions search QUERY [--json]`: one line per hit (when,
// conversation, title, role) and its snippet under it, the matches in [brackets].
func runSessionsSearch(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "sessions search")
	asJSON := f.Bool("json", false, "print the hits as JSON")
	pos, err := parseInterspersed(f, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return usageErr("usage: cairn sessions search QUERY [--json]")
	}
	cn, err := env.connect(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	res, err := cn.search().SearchMessages(ctx, query)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.Stdout, res)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(env.Stderr, "no messages match %q\n", query)
		return nil
	}
	for _, h := range res.Hits {
		title := h.SessionTitle
		if title == "" {
			title = "(untitled)"
		}
		if h.Archived {
			title += " [archived]"
		}
		when := time.UnixMilli(h.CreatedAt).Format("2006-01-02 15:04")
		fmt.Fprintf(env.Stdout, "%s  %s  %s  %s\n", when, h.SessionID, termtext.Line(title), h.Role)
		var b strings.Builder
		for _, sp := range h.Snippet {
			if sp.Mark {
				b.WriteString("[" + sp.Text + "]")
			} else {
				b.WriteString(sp.Text)
			}
		}
		fmt.Fprintf(env.Stdout, "    %s\n", termtext.Line(b.String()))
	}
	return nil
}

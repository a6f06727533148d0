package web

import (
	"context"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/webfetch"
	"github.com/cairn-app/cairn/backend/websearch"
)

// searchService is web search on a data directory's services: the settings, the keys, the
// cache in its database.
func searchService(env capability.Env) *websearch.Service {
	d := websearch.Deps{Log: env.Log, Language: func(ctx context.Context) string { return language(ctx, env) }}
	if env.Settings != nil {
		d.Settings = env.Settings
	}
	if env.Secrets != nil {
		d.Secrets = env.Secrets
	}
	if env.DB != nil {
		d.Cache = websearch.NewCache(env.DB)
	}
	return websearch.NewService(d)
}

// language is the window's chosen language, "" when it follows the system.
func language(ctx context.Context, env capability.Env) string {
	if env.Settings == nil {
		return ""
	}
	if l := env.Settings.String(ctx, "general.language"); l != "system" {
		return l
	}
	return ""
}

// searchTools are the search tools of an opened capability.
func searchTools(svc *websearch.Service) []tools.Entry {
	return []tools.Entry{websearch.SearchTool(svc)}
}

// searchCommand is `cairn search`.
func searchCommand() capability.Command {
	return capability.Command{Name: "search", Summary: websearch.CommandSummary,
		Run: func(ctx context.Context, term capability.Terminal, args []string) error {
			env, err := term.Open(ctx)
			if err != nil {
				return err
			}
			return websearch.RunCommand(ctx, searchService(env), args, term.Stdout, term.Stderr)
		}}
}

// providerLinks is parse_link's way to the chosen provider's page reader (Tavily extract,
// Exa contents, Jina reader, Firecrawl scrape).
type providerLinks struct{ svc *websearch.Service }

func (l providerLinks) ParseLink(ctx context.Context, u string) (webfetch.Page, bool, error) {
	p, ok := l.svc.LinkParser(ctx)
	if !ok {
		return webfetch.Page{}, false, nil
	}
	pg, err := p.ParseLink(ctx, u)
	if err != nil {
		return webfetch.Page{}, true, err
	}
	text, chars, dropped := cut(pg.Content, webfetch.DefaultMaxChars)
	return webfetch.Page{URL: pg.URL, Title: pg.Title, Byline: pg.Byline, Published: pg.Published, Markdown: text,
		Bytes: len(pg.Content), Chars: chars, Dropped: dropped, Provider: pg.Provider}, true, nil
}

// cut keeps the first max characters of text, as Cairn's fetcher does with a page.
func cut(text string, max int) (kept string, total, dropped int) {
	r := []rune(text)
	if len(r) <= max {
		return text, len(r), 0
	}
	return string(r[:max]), len(r), len(r) - max
}

// Package web is Cairn's web capability: reading pages (web_fetch, also called
// parse_link, and `cairn fetch`, package webfetch) and web search, whose tools are not
// built yet (a session can already enable the toolset and Settings keeps its keys).
package web

import (
	"context"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/webfetch"
)

// Name is the toolset and the namespace of its tools.
const Name = "web"

// Capability declares the toolset: its name, label and icon, the search providers' keys
// Settings → Web search manages, the fetcher's settings, its tool and `cairn fetch`.
func Capability() capability.Capability {
	return capability.Capability{
		Name:     Name,
		Label:    "chat:tools.namespace.web",
		Icon:     "globe",
		Secrets:  []string{"websearch.tavily", "websearch.bing", "websearch.brave", "websearch.bocha", "websearch.querit"},
		Settings: webfetch.Specs(),
		Commands: []capability.Command{webfetch.Command(webfetch.Options{}, linkParser)},
		Open:     open,
	}
}

// linkParser is the selected search provider's page reader for parse_link; nil (Cairn's
// own fetcher reads every page) until web search provides one.
func linkParser(capability.Env) webfetch.LinkParser { return nil }

func open(_ context.Context, env capability.Env) (capability.Opened, error) {
	var st webfetch.Settings
	if env.Settings != nil {
		st = env.Settings
	}
	reader := webfetch.NewReader(webfetch.Options{}, st, linkParser(env))
	return capability.Opened{Tools: []tools.Entry{reader.Tool()}}, nil
}

// Package web is Cairn's web capability: web search (web_search and `cairn search`,
// package websearch) and reading pages (web_fetch, also called parse_link, and
// `cairn fetch`, package webfetch), through the chosen search provider when it reads pages
// itself and through Cairn's own fetcher otherwise.
package web

import (
	"context"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/webfetch"
	"github.com/cairn-app/cairn/backend/websearch"
)

// Name is the toolset and the namespace of its tools.
const Name = websearch.Toolset

// Capability declares the toolset: its name, label and icon, the search providers' keys
// and settings, the fetcher's settings, the tools and `cairn search` / `cairn fetch`.
func Capability() capability.Capability {
	return capability.Capability{
		Name:        Name,
		Label:       "chat:tools.namespace.web",
		Icon:        "globe",
		Section:     websearch.SettingsSection,
		Instruction: websearch.Instruction,
		Secrets:     websearch.Secrets(),
		Settings:    append(websearch.Specs(), webfetch.Specs()...),
		Commands:    []capability.Command{searchCommand(), webfetch.Command(webfetch.Options{}, linkParser)},
		Open:        open,
	}
}

// linkParser is the chosen search provider's page reader for parse_link (Cairn's own
// fetcher reads the page when that provider cannot).
func linkParser(env capability.Env) webfetch.LinkParser { return providerLinks{searchService(env)} }

func open(_ context.Context, env capability.Env) (capability.Opened, error) {
	var st webfetch.Settings
	if env.Settings != nil {
		st = env.Settings
	}
	svc := searchService(env)
	reader := webfetch.NewReader(webfetch.Options{}, st, providerLinks{svc})
	return capability.Opened{Tools: append(searchTools(svc), reader.Tool())}, nil
}

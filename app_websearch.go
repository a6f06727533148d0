package main

import "github.com/cairn-app/cairn/backend/websearch"

// ListSearchProviders is Settings → Web search's list of providers: their names, the
// keyring name of their key, their default endpoint and whether they read pages
// themselves (parse_link).
func (a *App) ListSearchProviders() []websearch.Info {
	return websearch.Providers()
}

// TestWebSearch runs a real search through one provider with the saved key and endpoint,
// past the cache and without fallback, for Settings' Test button; query "" searches
// "Cairn". A failure is the provider's localized error.
func (a *App) TestWebSearch(provider, query string) (websearch.Answer, error) {
	svc := websearch.NewService(websearch.Deps{Settings: a.s.Settings, Secrets: a.s.Secrets, Log: a.s.Log})
	return svc.Search(a.ctx, websearch.TestRequest(provider, query))
}

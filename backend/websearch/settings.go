package websearch

import (
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/settings"
)

// The settings web search reads; all are on Settings → Web search.
const (
	SettingProvider = "websearch.provider"
	SettingFallback = "websearch.fallback"
	SettingAskAll   = "websearch.askAll"
	SettingCacheTTL = "websearch.cacheTTL"
	SettingTimeout  = "websearch.timeout"
	SettingProxy    = "websearch.proxy"
	// SettingFavicons turns site icons of results and citations on: Cairn then fetches
	// each result's site's /favicon.ico itself (public addresses only). Off, the window
	// shows a generic icon and nothing is fetched.
	SettingFavicons = "websearch.favicons"
)

// DefaultProvider answers without a key, so search works before any setup.
const DefaultProvider = Bing

// EndpointSetting is the setting that overrides a provider's base URL.
func EndpointSetting(id string) string { return "websearch.endpoint." + id }

func intp(v int) *int { return &v }

// Specs are web search's settings, in the order Settings shows them.
func Specs() []settings.Spec {
	sec := SettingsSection
	out := []settings.Spec{
		{Key: SettingProvider, Type: settings.Enum, Default: DefaultProvider, Enum: IDs(), Section: sec},
		// Provider IDs tried in order when the chosen one fails (comma- or space-separated).
		{Key: SettingFallback, Type: settings.String, Default: "", MaxLen: 300, Section: sec, Check: checkFallback},
		// Ask the chosen provider and the fallback chain at once and merge their results.
		{Key: SettingAskAll, Type: settings.Bool, Default: false, Section: sec},
		// How long an answer is reused for the same search; 0s turns the cache off.
		{Key: SettingCacheTTL, Type: settings.Duration, Default: "15m", MinDuration: "0s", MaxDuration: "168h", Section: sec},
		{Key: SettingTimeout, Type: settings.Duration, Default: "20s", MinDuration: "1s", MaxDuration: "5m", Section: sec},
		// A proxy URL (http, https or socks5) for search requests; empty uses the system's
		// (HTTP_PROXY, HTTPS_PROXY, NO_PROXY).
		{Key: SettingProxy, Type: settings.String, Default: "", MaxLen: 2000, Section: sec},
		{Key: SettingFavicons, Type: settings.Bool, Default: false, Section: sec},
	}
	for _, p := range catalog() {
		out = append(out, settings.Spec{Key: EndpointSetting(p.ID), Type: settings.String, Default: "", MaxLen: 2000, Section: sec})
	}
	return out
}

// parseChain reads the fallback setting: known IDs in order, each once; unknown names are
// returned apart so the caller can say so.
func parseChain(s string) (ids, unknown []string) {
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' || r == '\n' }) {
		id := strings.ToLower(strings.TrimSpace(f))
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if _, ok := Lookup(id); ok {
			ids = append(ids, id)
		} else {
			unknown = append(unknown, id)
		}
	}
	return ids, unknown
}

// UnknownFallback is the names in a fallback setting that are no provider Cairn has: a
// value stored before the setting was checked, or edited by hand. Doctor names them.
func UnknownFallback(s string) []string {
	_, unknown := parseChain(s)
	return unknown
}

// checkFallback refuses a fallback chain naming a provider Cairn does not have, so a typo
// is said when it is typed instead of being skipped at every search.
func checkFallback(v any) *apperr.Error {
	s, _ := v.(string)
	unknown := UnknownFallback(s)
	if len(unknown) == 0 {
		return nil
	}
	names := make([]string, len(unknown))
	for i, n := range unknown {
		names[i] = apperr.Quote(n)
	}
	known := strings.Join(IDs(), ", ")
	return apperr.New(apperr.SearchFallbackUnknown, "%s names no web search provider: %s (known: %s)",
		SettingFallback, strings.Join(names, ", "), known).
		WithParam("key", SettingFallback).WithParam("names", strings.Join(names, ", ")).WithParam("known", known)
}

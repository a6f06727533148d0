package websearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// SettingsSection is the Settings page every web search error's action opens.
const SettingsSection = "web-search"

// failure builds a search error: the message is for the model and the logs, the code and
// params for the window. Every one names the provider.
func failure(code apperr.Code, id string, format string, args ...any) *apperr.Error {
	return apperr.New(code, "%s: %s", DisplayName(id), fmt.Sprintf(format, args...)).
		WithParam("provider", DisplayName(id))
}

func errKeyRequired(id string) error {
	if id == Tavily {
		return failure(apperr.TavilyKeyRequired, id, "no API key is set (Settings → Web search, secret %s)", SecretName(id)).
			WithParam("secret", SecretName(id))
	}
	return failure(apperr.SearchKeyRequired, id, "no API key is set (Settings → Web search, secret %s)", SecretName(id)).
		WithParam("secret", SecretName(id))
}

func errEndpointRequired(id string) error {
	return failure(apperr.SearchEndpointRequired, id, "no instance URL is set (setting %s)", EndpointSetting(id)).
		WithParam("setting", EndpointSetting(id))
}

func errNoParseLink(id string) error {
	return failure(apperr.ParseLinkUnsupported, id, "this provider cannot read pages")
}

func errBadResponse(id string, err error) error {
	return failure(apperr.SearchBadResponse, id, "the answer could not be read: %v", err).
		WithParam("reason", short(err.Error()))
}

// errTransport is a request that got no HTTP answer: stopped by ctx, timed out, refused.
func errTransport(id string, err error) error {
	if errors.Is(err, context.Canceled) {
		return apperr.Wrap(err, apperr.Canceled, "%s: search stopped", DisplayName(id))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return apperr.Wrap(err, apperr.SearchUnreachable, "%s: no answer in time", DisplayName(id)).
			WithParam("provider", DisplayName(id)).WithParam("reason", "no answer in time")
	}
	return apperr.Wrap(err, apperr.SearchUnreachable, "%s: could not be reached", DisplayName(id)).
		WithParam("provider", DisplayName(id)).WithParam("reason", short(err.Error()))
}

// errStatus turns an HTTP error answer into the search error it means.
func errStatus(id string, resp *http.Response, body []byte) error {
	return statusError(id, resp.StatusCode, errorDetail(body), retryAfter(resp.Header.Get("Retry-After"), time.Now()))
}

// statusError classifies a failure by its HTTP status, or by the status-like code some
// services put in a 200 answer's body (BoCha's code, Querit's error_code).
func statusError(id string, st int, detail string, after time.Duration) error {
	why := fmt.Sprintf("HTTP %d", st)
	if detail != "" {
		why += ": " + detail
	}
	switch {
	case st == http.StatusUnauthorized || st == http.StatusForbidden:
		return failure(apperr.SearchKeyInvalid, id, "the API key was refused (%s)", why).
			WithParam("status", st).WithParam("reason", detail)
	case st == http.StatusTooManyRequests || st == http.StatusPaymentRequired || st == 432 || st == 433:
		return rateLimited(id, why, after)
	case st >= 500:
		return failure(apperr.SearchUnreachable, id, "the service failed (%s)", why).
			WithParam("status", st).WithParam("reason", detail)
	}
	return failure(apperr.SearchRejected, id, "the request was refused (%s)", why).
		WithParam("status", st).WithParam("reason", detail)
}

// errRefused is a 2xx answer that says the search failed.
func errRefused(id, detail string) error {
	return failure(apperr.SearchRejected, id, "the service reported a failure: %s", firstNonEmpty(detail, "no reason given")).
		WithParam("reason", short(detail))
}

func rateLimited(id, why string, after time.Duration) error {
	e := failure(apperr.SearchRateLimited, id, "rate or usage limit reached (%s)", why).WithParam("reason", why)
	if after > 0 {
		secs := int((after + time.Second - 1) / time.Second)
		e = failure(apperr.SearchRateLimited, id, "rate or usage limit reached (%s); retry after %ds", why, secs).
			WithParam("reason", why).WithParam("retryAfter", secs)
	}
	return e
}

// retryAfter reads a Retry-After header: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// errorDetail finds the human text in the error bodies services send: {"detail":{"error"}}
// (Tavily), {"error":{"detail"|"message"}} (Brave, Zhipu), {"error": "…"} (Exa, Firecrawl),
// {"message"} (Serper, Jina), {"msg"} (BoCha), {"error_msg"} (Querit); else the raw text.
func errorDetail(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return short(strings.TrimSpace(string(body)))
	}
	for _, path := range [][]string{
		{"detail", "error"}, {"detail"}, {"error", "detail"}, {"error", "message"}, {"error"},
		{"readableMessage"}, {"message"}, {"msg"}, {"error_msg"},
	} {
		if s, ok := lookupString(v, path); ok && s != "" {
			return short(s)
		}
	}
	return short(strings.TrimSpace(string(body)))
}

func lookupString(v any, path []string) (string, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		v = m[k]
	}
	s, ok := v.(string)
	return s, ok
}

// short keeps an error text readable in a message: one line, at most 300 characters.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}

package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	openai "github.com/sashabaranov/go-openai"
)

// failure is a provider's error answer, normalised from go-openai's error types or from a
// plain HTTP response.
type failure struct {
	status     int // 0 when the error arrived inside a stream
	code       string
	typ        string
	message    string
	jsonBody   bool   // the provider answered with an OpenAI-style JSON error
	extraField string // a request field the provider refuses as unknown (extraField)
	retryAfter time.Duration
	hasRetry   bool
}

// target names what a call went to, for the error parameters.
type target struct {
	providerID string
	baseURL    string
	model      string
	sent       []string // the provider-specific fields the request carried
}

var (
	reContextTooLong = regexp.MustCompile(`(?i)context[ _-]?length|maximum context|context window|too many tokens|reduce the length|prompt is too long|input is too long|exceeds? the (model'?s? )?(maximum|max|context)|token limit`)
	reToolsUnsupp    = regexp.MustCompile(`(?i)does not support (tools|tool|function)|(tools?|function[ _-]?call(ing|s)?|tool[ _-]?(use|call(ing|s)?)) (is |are )?not supported|not support(ed)? (tools|function[ _-]?call)|unsupported.{0,20}\btools?\b|\btools?\b.{0,20}unsupported`)
	// DeepSeek's thinking mode: "The `reasoning_content` in the thinking mode must be passed
	// back to the API." and "Missing `reasoning_content` field in the assistant message at
	// message index 2."
	reReasoningBack = regexp.MustCompile("(?i)reasoning[_ ]content`?.{0,40}must be passed back|missing `?reasoning[_ ]content")
	reModelMissing  = regexp.MustCompile(`(?i)model.{0,80}(not found|does not exist|not exist|unknown|invalid model)|model_not_found|no such model|unknown model|invalid model`)
)

// classify turns a provider failure into the apperr the user sees.
func classify(f failure, t target) *apperr.Error {
	msg := strings.TrimSpace(f.message)
	if msg == "" {
		msg = http.StatusText(f.status)
	}
	code := strings.ToLower(f.code)
	detail := fmt.Sprintf("provider %s (%s) answered %d: %s", t.baseURL, t.model, f.status, msg)
	if f.status == 0 {
		detail = fmt.Sprintf("provider %s (%s) sent an error in the stream: %s", t.baseURL, t.model, msg)
	}
	withProvider := func(e *apperr.Error) *apperr.Error {
		if t.providerID != "" {
			e = e.WithParam("providerId", t.providerID)
		}
		return e
	}
	switch {
	case f.status == http.StatusUnauthorized || code == "invalid_api_key" || code == "authentication_error" || f.typ == "authentication_error":
		return withProvider(apperr.New(apperr.ModelAuthFailed, "%s", detail))
	case f.status == http.StatusForbidden && !reToolsUnsupp.MatchString(msg):
		return withProvider(apperr.New(apperr.ModelAuthFailed, "%s", detail))
	case code == "insufficient_quota" || strings.Contains(strings.ToLower(msg), "insufficient balance") || f.status == http.StatusPaymentRequired:
		return withProvider(apperr.New(apperr.ModelBadRequest, "%s", detail).WithParam("message", msg).WithAction("open-settings", "providers"))
	case f.status == http.StatusTooManyRequests || code == "rate_limit_exceeded" || f.typ == "rate_limit_error":
		secs := 0
		if f.hasRetry {
			secs = int(math.Ceil(f.retryAfter.Seconds()))
		}
		return apperr.New(apperr.ModelRateLimited, "%s", detail).WithParam("retryAfter", secs)
	case reReasoningBack.MatchString(msg):
		return withProvider(apperr.New(apperr.ModelReasoningRequired, "%s", detail).WithParam("model", t.model))
	case f.status >= 400 && f.status < 500 && refusedField(msg, t.sent) != "":
		return withProvider(apperr.New(apperr.ModelReasoningOptionRefused, "%s", detail).
			WithParam("field", refusedField(msg, t.sent)).WithParam("model", t.model).WithParam("message", shorten(msg, 300)))
	case f.status >= 400 && f.status < 500 && f.extraField != "":
		return withProvider(apperr.New(apperr.ModelFieldRefused, "%s", detail).
			WithParam("field", f.extraField).WithParam("message", shorten(msg, 300)))
	case code == "context_length_exceeded" || f.status == http.StatusRequestEntityTooLarge || reContextTooLong.MatchString(msg):
		return apperr.New(apperr.ModelContextTooLong, "%s", detail).WithParam("model", t.model)
	case reToolsUnsupp.MatchString(msg):
		return withProvider(apperr.New(apperr.ModelToolsUnsupp, "%s", detail).WithParam("model", t.model))
	case f.status == http.StatusNotFound && !f.jsonBody:
		// A bare 404 page: the base URL is not an OpenAI-compatible API root.
		reason := fmt.Sprintf("%s has no /chat/completions (HTTP 404); check the base URL (it usually ends in /v1)", t.baseURL)
		return withProvider(apperr.New(apperr.ProviderInvalid, "%s", detail).WithParam("reason", reason))
	case f.status == http.StatusNotFound || code == "model_not_found" || reModelMissing.MatchString(msg):
		return withProvider(apperr.New(apperr.ModelNotFound, "%s", detail).WithParam("model", t.model))
	case f.status >= 500:
		return apperr.New(apperr.ModelServerError, "%s", detail).WithParam("status", f.status)
	default:
		return apperr.New(apperr.ModelBadRequest, "%s", detail).WithParam("message", msg)
	}
}

var (
	// Pydantic's rejection of an undeclared field (Mistral, vLLM):
	// {"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted"}.
	reExtraForbidden = regexp.MustCompile(`extra_forbidden\W{1,8}loc\W{1,8}\[([^\]]*)\]`)
	// OpenAI's: "Unrecognized request argument supplied: foo".
	reUnrecognized = regexp.MustCompile(`(?i)unrecognized request arguments? supplied:\s*([A-Za-z0-9_.]+)`)
)

// extraField is the request field an error refuses as unknown, or "". For a field inside
// a message it names the message field ("messages.2.reasoning_content").
func extraField(body string) string {
	if m := reExtraForbidden.FindStringSubmatch(body); m != nil {
		var parts []string
		for _, p := range strings.Split(m[1], ",") {
			p = strings.Trim(strings.TrimSpace(p), `"\`)
			if p != "" && p != "body" && p != "user" && p != "assistant" && p != "system" && p != "tool" {
				parts = append(parts, p)
			}
		}
		return shorten(strings.Join(parts, "."), 80)
	}
	if m := reUnrecognized.FindStringSubmatch(body); m != nil {
		return shorten(m[1], 80)
	}
	return ""
}

// refusedField is the reasoning control Cairn sent that a rejection names, or "".
func refusedField(msg string, sent []string) string {
	low := strings.ToLower(msg)
	for _, f := range sent {
		if strings.Contains(low, f) {
			return f
		}
	}
	return ""
}

// mapError maps an error of a request (before any stream data) to an apperr. meta holds
// the response headers the transport saw.
func mapError(ctx context.Context, err error, meta *respMeta, t target) *apperr.Error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return apperr.Wrap(context.Canceled, apperr.Canceled, "request to %s cancelled", t.baseURL)
	}
	var f failure
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		f = failure{status: apiErr.HTTPStatusCode, typ: apiErr.Type, message: apiErr.Message, jsonBody: true, extraField: extraField(apiErr.Message)}
		f.code = codeString(apiErr.Code)
	case errors.As(err, &reqErr):
		f = failure{status: reqErr.HTTPStatusCode, message: bodyMessage(reqErr.Body), extraField: extraField(string(reqErr.Body))}
		if reqErr.HTTPStatusCode == 0 {
			return unreachable(err, t)
		}
	case isNetError(err) || isURLError(err):
		return unreachable(err, t)
	default:
		// Refused before sending (go-openai's own request checks).
		return apperr.Wrap(err, apperr.ModelBadRequest, "request to %s not sent", t.baseURL).WithParam("message", err.Error())
	}
	if meta != nil {
		f.retryAfter, f.hasRetry = meta.retry()
	}
	return classify(f, t)
}

// mapStreamError maps an error that ended a stream after it started.
func mapStreamError(ctx context.Context, err error, t target) *apperr.Error {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return apperr.Wrap(context.Canceled, apperr.Canceled, "stream from %s cancelled", t.baseURL)
	}
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return classify(failure{typ: apiErr.Type, code: codeString(apiErr.Code), message: apiErr.Message, jsonBody: true}, t)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.As(err, &typ), errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return apperr.Wrap(err, apperr.ModelStreamMalformed, "malformed stream from %s", t.baseURL)
	case errors.Is(err, io.ErrUnexpectedEOF), isNetError(err):
		return apperr.Wrap(err, apperr.ModelStreamMalformed, "stream from %s broke off", t.baseURL)
	}
	return apperr.Wrap(err, apperr.ModelStreamMalformed, "stream from %s failed", t.baseURL)
}

// hostURL is a base URL's scheme and host, the part an error names.
func hostURL(baseURL string) string {
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return baseURL
}

func unreachable(err error, t target) *apperr.Error {
	host := hostURL(t.baseURL)
	var ue *url.Error
	if errors.As(err, &ue) && !isNetError(ue.Err) && strings.Contains(ue.Err.Error(), "unsupported protocol scheme") {
		return apperr.Wrap(err, apperr.ProviderInvalid, "bad base URL %s", t.baseURL).
			WithParam("reason", "the base URL must start with http:// or https://")
	}
	e := apperr.Wrap(err, apperr.ModelUnreachable, "cannot reach %s", t.baseURL).WithParam("url", host)
	if t.providerID != "" {
		e = e.WithParam("providerId", t.providerID)
	}
	return e
}

func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.As(err, &de)
}

func isURLError(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue)
}

func codeString(c any) string {
	switch v := c.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// bodyMessage pulls a readable message out of a non-standard error body.
func bodyMessage(body []byte) string {
	var generic map[string]any
	if json.Unmarshal(body, &generic) == nil {
		for _, k := range []string{"message", "error", "detail", "msg"} {
			switch v := generic[k].(type) {
			case string:
				return v
			case map[string]any:
				if m, ok := v["message"].(string); ok {
					return m
				}
				if m := detailMsg(v["detail"]); m != "" {
					return m
				}
			case []any:
				if m := detailMsg(v); m != "" {
					return m
				}
			}
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// detailMsg is the "msg" of the first entry of a pydantic error list ("detail": [...]).
func detailMsg(v any) string {
	list, _ := v.([]any)
	if len(list) == 0 {
		return ""
	}
	first, _ := list[0].(map[string]any)
	m, _ := first["msg"].(string)
	return m
}

// parseRetryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or an HTTP date).
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

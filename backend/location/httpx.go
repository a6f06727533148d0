package location

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// maxBody caps what Cairn reads of one answer: a page of places or a long route is tens
// of kilobytes, so anything near this is not a map service's answer.
const maxBody = 2 << 20

// getJSON sends one request to a service and decodes a 2xx answer into out. status sees
// every answer first and classifies the failures the service writes in its own way
// (Amap and Google both answer many errors with 200 and a status field); an answer it
// lets through with a non-2xx status is classified by the HTTP status alone.
func getJSON(ctx context.Context, c *http.Client, p provider, method, u string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return errBadResponse(p, fmt.Errorf("build request: %w", err))
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Cairn")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return errTransport(p, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return errTransport(p, err)
	}
	if len(b) > maxBody {
		return errBadResponse(p, fmt.Errorf("the answer is larger than %d MiB", maxBody>>20))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return httpStatus(p, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return errBadResponse(p, err)
	}
	return nil
}

// httpStatus is an HTTP error answer; Google's Geolocation API explains itself in
// {"error":{"message","errors":[{"reason"}]}}, whose reason picks the error.
func httpStatus(p provider, st int, body []byte) error {
	var e struct {
		Error struct {
			Message string `json:"message"`
			Errors  []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"error"`
	}
	why := fmt.Sprintf("HTTP %d", st)
	reason := ""
	if json.Unmarshal(body, &e) == nil {
		if len(e.Error.Errors) > 0 {
			reason = e.Error.Errors[0].Reason
		}
		if m := short(e.Error.Message); m != "" {
			why += ": " + m
		}
	}
	switch {
	case reason == "dailyLimitExceeded" || reason == "userRateLimitExceeded" || st == http.StatusTooManyRequests:
		return errRateLimited(p, why)
	case reason == "keyInvalid" || st == http.StatusUnauthorized || st == http.StatusForbidden:
		return errKeyInvalid(p, why)
	case reason == "notFound" || st == http.StatusNotFound:
		return failure(apperr.LocationNotFound, p, "no location could be found (%s)", why).WithParam("what", "this network")
	case st >= 500:
		return failure(apperr.LocationUnreachable, p, "the service failed (%s)", why).WithParam("reason", why)
	}
	return errRejected(p, why)
}

// endpoint is the base URL of a service: the setting when it is set, else def. Only
// http and https are accepted, and what the base is never comes from an answer.
func endpoint(p provider, setting, def string) (string, error) {
	raw := strings.TrimSpace(setting)
	if raw == "" {
		return def, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errEndpoint(p, raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

// withQuery is base + path + ?q.
func withQuery(base, path string, q url.Values) string {
	return strings.TrimRight(base, "/") + path + "?" + q.Encode()
}

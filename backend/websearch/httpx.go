package websearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// maxBody caps what Cairn reads of one answer; search and extract answers are far smaller.
const maxBody = 8 << 20

// request is one call to a service.
type request struct {
	id     string // the provider, for errors
	method string
	url    string
	header map[string]string
	body   any // JSON-encoded when not nil
	// check, when set, sees every answer first (status and body) and may return the
	// provider's own error for it; nil lets the default classification run.
	check func(resp *http.Response, body []byte) error
}

// send runs r with cfg's client and returns the body of a 2xx answer; every other outcome
// is the search error it means. ctx reaches the request, so a stop aborts it.
func send(ctx context.Context, cfg Config, r request) ([]byte, *http.Response, error) {
	var rd io.Reader
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, nil, fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, rd)
	if err != nil {
		return nil, nil, errBadEndpoint(r.id, r.url, err)
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set("User-Agent", "Cairn")
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	resp, err := cfg.client().Do(req)
	if err != nil {
		return nil, nil, errTransport(r.id, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, nil, errTransport(r.id, err)
	}
	if len(body) > maxBody {
		return nil, nil, errBadResponse(r.id, fmt.Errorf("the answer is larger than %d MiB", maxBody>>20))
	}
	if r.check != nil {
		if err := r.check(resp, body); err != nil {
			return nil, nil, err
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, nil, errStatus(r.id, resp, body)
	}
	return body, resp, nil
}

// sendJSON is send followed by decoding the answer into out.
func sendJSON(ctx context.Context, cfg Config, r request, out any) error {
	body, _, err := send(ctx, cfg, r)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return errBadResponse(r.id, err)
	}
	return nil
}

func errBadEndpoint(id, raw string, err error) error {
	return failure(apperr.SearchEndpointInvalid, id, "the endpoint %q is not a usable URL: %v", raw, err).
		WithParam("setting", EndpointSetting(id))
}

// join appends a path to a base URL, keeping the base's own path (a proxy's prefix).
func join(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
}

// withQuery appends query parameters to u.
func withQuery(u string, q url.Values) string {
	if strings.Contains(u, "?") {
		return u + "&" + q.Encode()
	}
	return u + "?" + q.Encode()
}

func bearer(key string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + key}
}

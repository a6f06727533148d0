package webfetch

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/netguard"
)

// Every failure is two-layer: the message (what the model reads) says the technical
// reason; the code, its parameters and action are what the window shows.

func shortURL(raw string) string {
	if len(raw) > 200 {
		return raw[:200] + "…"
	}
	return raw
}

func invalidURL(raw string) error {
	return apperr.New(apperr.ParseLinkFailed, "%q is not an http or https address", shortURL(raw)).
		WithParam("host", shortURL(raw)).WithParam("message", "only http and https addresses can be read")
}

func fetchError(u *url.URL, err error) error {
	if netguard.IsBlocked(err) {
		return blocked(u, err)
	}
	return failed(u, err)
}

func blocked(u *url.URL, err error) error {
	return apperr.Wrap(err, apperr.FetchBlockedAddress, "fetch %s refused", u.Redacted()).WithParam("host", u.Hostname())
}

func failed(u *url.URL, err error) error {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Err.Error()
	}
	return apperr.Wrap(err, apperr.ParseLinkFailed, "fetch %s", u.Redacted()).
		WithParam("host", u.Hostname()).WithParam("message", msg)
}

func (f *Fetcher) tooLarge(u *url.URL, size int64) error {
	limit := strconv.FormatInt(f.opt.MaxBytes>>20, 10) + " MiB"
	what := "its body"
	if size > 0 {
		what = fmt.Sprintf("its %d bytes", size)
	}
	return apperr.New(apperr.FetchTooLarge, "fetch %s: %s are over the %s limit", u.Redacted(), what, limit).
		WithParam("host", u.Hostname()).WithParam("limit", limit)
}

func unsupported(u *url.URL, ct string) error {
	if ct == "" {
		ct = "no content type"
	}
	return apperr.New(apperr.FetchUnsupportedType, "fetch %s: %s is not HTML, text or PDF", u.Redacted(), ct).
		WithParam("host", u.Hostname()).WithParam("type", ct)
}

package location

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// SettingsSection is the Settings page the key and endpoint errors' action opens.
const SettingsSection = "location"

// failure builds a location error: the message is for the model and the logs, the code
// and params for the window. Every one names the service.
func failure(code apperr.Code, p provider, format string, args ...any) *apperr.Error {
	return apperr.New(code, "%s: %s", p.display(), fmt.Sprintf(format, args...)).WithParam("provider", p.display())
}

func errKeyRequired(p provider) error {
	return failure(apperr.LocationKeyRequired, p, "no API key is set; the user can add one in Settings → Location (secret %s)", p.secret()).
		WithParam("secret", p.secret())
}

// errNoKeys is a locate with neither service's key: either would do.
func errNoKeys() error {
	return apperr.New(apperr.LocationKeyRequired, "no map API key is set (Amap or Google Maps); the user can add one in Settings → Location").
		WithParam("provider", "Amap / Google Maps").WithParam("secret", SecretAmap+", "+SecretGoogle)
}

func errKeyInvalid(p provider, reason string) error {
	return failure(apperr.LocationKeyInvalid, p, "the API key was refused (%s)", reason).WithParam("reason", reason)
}

func errRateLimited(p provider, reason string) error {
	return failure(apperr.LocationRateLimited, p, "rate or quota limit reached (%s)", reason).WithParam("reason", reason)
}

func errRejected(p provider, reason string) error {
	return failure(apperr.LocationRejected, p, "the request was refused (%s)", reason).WithParam("reason", reason)
}

func errNotFound(p provider, what string) error {
	return failure(apperr.LocationNotFound, p, "nothing found for %s", apperr.Quote(what)).WithParam("what", apperr.Quote(what))
}

func errBadResponse(p provider, err error) error {
	return failure(apperr.LocationBadResponse, p, "the answer could not be read: %v", err).WithParam("reason", short(err.Error()))
}

func errEndpoint(p provider, raw string) error {
	return failure(apperr.LocationEndpointInvalid, p, "the endpoint %s is not an http(s) URL", apperr.Quote(raw)).
		WithParam("endpoint", apperr.Quote(raw)).WithParam("setting", p.endpointSetting())
}

// errTransport is a request that got no HTTP answer. The URL carries the key, so only
// the inner error of a *url.Error is said.
func errTransport(p provider, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case errors.Is(err, context.Canceled):
		return apperr.Wrap(err, apperr.Canceled, "%s: stopped", p.display())
	case errors.Is(err, context.DeadlineExceeded):
		return failure(apperr.LocationUnreachable, p, "no answer in time").WithParam("reason", "no answer in time")
	}
	return failure(apperr.LocationUnreachable, p, "could not be reached: %s", short(err.Error())).WithParam("reason", short(err.Error()))
}

// short keeps a reason readable in a message: one clean line, at most 200 characters.
func short(s string) string { return clean(strings.TrimSpace(s), 200) }

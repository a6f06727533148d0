package location

import (
	"net/url"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/settings"
)

// The keys in the keyring.
const (
	SecretAmap   = "maps.amap"
	SecretGoogle = "maps.google"
)

// The settings the location tool reads, all on Settings → Location.
const (
	SettingTimeout = "location.timeout"
	// SettingGeolocation overrides Google's Geolocation API base, which is not on the
	// Maps host.
	SettingGeolocation = "location.endpoint.geolocation"
)

// The services' documented bases.
const (
	DefaultAmapEndpoint        = "https://restapi.amap.com"
	DefaultGoogleEndpoint      = "https://maps.googleapis.com"
	DefaultGeolocationEndpoint = "https://www.googleapis.com"
)

// EndpointSetting is the setting that overrides a service's base URL (a proxy, a test
// server); empty means the documented one.
func EndpointSetting(p provider) string { return "location.endpoint." + string(p) }

// Specs are the location settings, in the order Settings shows them.
func Specs() []settings.Spec {
	sec := SettingsSection
	return []settings.Spec{
		{Key: SettingTimeout, Type: settings.Duration, Default: "20s", MinDuration: "1s", MaxDuration: "2m", Section: sec},
		{Key: EndpointSetting(Amap), Type: settings.String, Default: "", MaxLen: 2000, Section: sec, Check: checkEndpoint},
		{Key: EndpointSetting(Google), Type: settings.String, Default: "", MaxLen: 2000, Section: sec, Check: checkEndpoint},
		{Key: SettingGeolocation, Type: settings.String, Default: "", MaxLen: 2000, Section: sec, Check: checkEndpoint},
	}
}

// checkEndpoint refuses an endpoint that is not an http(s) URL when it is typed, instead
// of at the first call.
func checkEndpoint(v any) *apperr.Error {
	s, _ := v.(string)
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	return apperr.New(apperr.LocationEndpointInvalid, "%s is not an http(s) URL", apperr.Quote(s)).
		WithParam("provider", "Location").WithParam("endpoint", apperr.Quote(s))
}

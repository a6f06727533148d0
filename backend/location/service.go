package location

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// SettingsReader is what the service reads of Settings.
type SettingsReader interface {
	String(ctx context.Context, key string) string
	Duration(ctx context.Context, key string) time.Duration
}

// SecretReader reads the map keys from the keyring.
type SecretReader interface {
	Get(name string) (value string, ok bool, err error)
}

// Deps are what the service is built with.
type Deps struct {
	Settings SettingsReader
	Secrets  SecretReader
	// HTTP is the client of every request; nil uses the system proxy settings.
	HTTP *http.Client
	// PageDelay is the wait before a Google next_page_token is used; 0 is 2 s, which
	// Google's documentation suggests.
	PageDelay time.Duration
	Log       *slog.Logger
	// Language is the window's language ("en", "zh-CN"; "" when it follows the system),
	// asked of Google when the call names none. Nil is none.
	Language func(ctx context.Context) string
}

// Service answers location_query calls with the service their region picks.
type Service struct{ d Deps }

// NewService builds the service.
func NewService(d Deps) *Service {
	if d.HTTP == nil {
		d.HTTP = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	}
	if d.PageDelay <= 0 {
		d.PageDelay = 2 * time.Second
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

func (s *Service) setting(ctx context.Context, key string) string {
	if s.d.Settings == nil {
		return ""
	}
	return s.d.Settings.String(ctx, key)
}

// key reads a service's key; ok is false when none is set.
func (s *Service) key(p provider) (string, bool, error) {
	if s.d.Secrets == nil {
		return "", false, nil
	}
	v, ok, err := s.d.Secrets.Get(p.secret())
	if err != nil {
		return "", false, apperr.Wrap(err, apperr.Internal, "read the %s key", p.display())
	}
	v = strings.TrimSpace(v)
	return v, ok && v != "", nil
}

func (s *Service) amap(ctx context.Context) (amapClient, error) {
	key, ok, err := s.key(Amap)
	if err != nil {
		return amapClient{}, err
	}
	if !ok {
		return amapClient{}, errKeyRequired(Amap)
	}
	base, err := endpoint(Amap, s.setting(ctx, EndpointSetting(Amap)), DefaultAmapEndpoint)
	if err != nil {
		return amapClient{}, err
	}
	return amapClient{base: base, key: key, http: s.d.HTTP}, nil
}

func (s *Service) google(ctx context.Context, language string) (googleClient, error) {
	if language == "" && s.d.Language != nil {
		language = s.d.Language(ctx)
	}
	key, ok, err := s.key(Google)
	if err != nil {
		return googleClient{}, err
	}
	if !ok {
		return googleClient{}, errKeyRequired(Google)
	}
	base, err := endpoint(Google, s.setting(ctx, EndpointSetting(Google)), DefaultGoogleEndpoint)
	if err != nil {
		return googleClient{}, err
	}
	geo, err := endpoint(Google, s.setting(ctx, SettingGeolocation), DefaultGeolocationEndpoint)
	if err != nil {
		return googleClient{}, err
	}
	return googleClient{base: base, geoBase: geo, key: key, language: language, http: s.d.HTTP, pageDelay: s.d.PageDelay}, nil
}

// timeout bounds one call's requests to the services (the setting, 20 s by default).
func (s *Service) timeout(ctx context.Context) time.Duration {
	if s.d.Settings != nil {
		if d := s.d.Settings.Duration(ctx, SettingTimeout); d > 0 {
			return d
		}
	}
	return 20 * time.Second
}

// Query runs one checked call.
func (s *Service) Query(ctx context.Context, r Request) (Display, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout(ctx))
	defer cancel()
	if r.Action == "locate" {
		return s.locate(ctx, r)
	}
	if r.Region == RegionCN {
		c, err := s.amap(ctx)
		if err != nil {
			return Display{}, err
		}
		return amapQuery(ctx, c, r)
	}
	c, err := s.google(ctx, r.Language)
	if err != nil {
		return Display{}, err
	}
	return googleQuery(ctx, c, r)
}

// locate finds the caller by IP: Amap's IP location in mainland China, Google's
// Geolocation API elsewhere. Without a region, Amap is asked first when its key is set
// and Google when Amap has no place for the address (it knows mainland addresses only).
func (s *Service) locate(ctx context.Context, r Request) (Display, error) {
	_, amapOK, err := s.key(Amap)
	if err != nil {
		return Display{}, err
	}
	_, googleOK, err := s.key(Google)
	if err != nil {
		return Display{}, err
	}
	if r.Region == "" && !amapOK && !googleOK {
		return Display{}, errNoKeys()
	}
	if r.Region == RegionCN || (r.Region == "" && amapOK) {
		c, err := s.amap(ctx)
		if err != nil {
			return Display{}, err
		}
		p, found, err := c.locate(ctx)
		switch {
		case err != nil:
			return Display{}, err
		case found:
			d := newDisplay("locate", Amap)
			d.Places = []Place{p}
			return d, nil
		case r.Region == RegionCN || !googleOK:
			return Display{}, errNotFound(Amap, "this network's address (Amap locates mainland Chinese addresses only)")
		}
	}
	c, err := s.google(ctx, r.Language)
	if err != nil {
		return Display{}, err
	}
	return googleLocate(ctx, c)
}

func googleLocate(ctx context.Context, c googleClient) (Display, error) {
	pt, acc, err := c.geolocate(ctx)
	if err != nil {
		return Display{}, err
	}
	d := newDisplay("locate", Google)
	d.AccuracyM = acc
	p := Place{Name: pt.latLng(), Point: pt, MapURL: googlePlaceURL(pt)}
	if found, err := c.geocode(ctx, pt.latLng()); err != nil {
		if apperr.Is(err, apperr.Canceled) {
			return Display{}, err
		}
		d.Note = "The address of this position could not be looked up: " + apperr.From(err).Message
	} else if len(found) > 0 {
		p.Name = found[0].Name
	}
	d.Places = []Place{p}
	return d, nil
}

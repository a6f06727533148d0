package location

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// googleClient speaks the Google Maps Platform web services: Geocoding, Places (Text
// and Nearby Search), Directions, and the Geolocation API for locate. The Maps services
// answer most failures with HTTP 200 and a status field (OVER_QUERY_LIMIT,
// REQUEST_DENIED, INVALID_REQUEST …, with error_message); coordinates are WGS-84.
type googleClient struct {
	base, geoBase, key, language string
	http                         *http.Client
	// pageDelay is how long a next_page_token needs before it is valid: Google issues it
	// before the page exists, and asks for "a short delay".
	pageDelay time.Duration
}

type googleStatus struct {
	Status       string `json:"status"`
	ErrorMessage string `json:"error_message"`
}

func (s googleStatus) st() googleStatus { return s }

type googleAnswer interface{ st() googleStatus }

// check turns a status into its error; OK and ZERO_RESULTS are answers (the caller says
// what nothing means for it).
func (s googleStatus) check(what string) error {
	reason := short(strings.TrimSpace(s.Status + ": " + s.ErrorMessage))
	switch s.Status {
	case "OK", "ZERO_RESULTS":
		return nil
	case "OVER_QUERY_LIMIT", "OVER_DAILY_LIMIT":
		return errRateLimited(Google, reason)
	case "REQUEST_DENIED":
		return errKeyInvalid(Google, reason)
	case "NOT_FOUND":
		return failure(apperr.LocationNotFound, Google, "nothing found for %s (%s)", apperr.Quote(what), reason).
			WithParam("what", apperr.Quote(what)).WithParam("reason", reason)
	case "UNKNOWN_ERROR":
		return failure(apperr.LocationUnreachable, Google, "the service failed (%s)", reason).WithParam("reason", reason)
	case "INVALID_REQUEST", "MAX_WAYPOINTS_EXCEEDED", "MAX_ROUTE_LENGTH_EXCEEDED":
		return errRejected(Google, reason)
	}
	return errBadResponse(Google, fmt.Errorf("unknown status %q", clean(s.Status, 40)))
}

func (c googleClient) get(ctx context.Context, path string, q url.Values, what string, out googleAnswer) error {
	q.Set("key", c.key)
	if c.language != "" {
		q.Set("language", c.language)
	}
	if err := getJSON(ctx, c.http, Google, http.MethodGet, withQuery(c.base, path, q), nil, out); err != nil {
		return err
	}
	return out.st().check(what)
}

type googleLatLng struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

func (l googleLatLng) point() (Point, bool) {
	p := Point{Lat: l.Lat, Lng: l.Lng, Datum: WGS84}
	return p, p.valid() && (l.Lat != 0 || l.Lng != 0)
}

type googleResult struct {
	Name             string   `json:"name"`
	FormattedAddress string   `json:"formatted_address"`
	Vicinity         string   `json:"vicinity"`
	Types            []string `json:"types"`
	Geometry         struct {
		Location googleLatLng `json:"location"`
	} `json:"geometry"`
}

func (r googleResult) place(centre *Point) (Place, bool) {
	pt, ok := r.Geometry.Location.point()
	if !ok {
		return Place{}, false
	}
	addr := r.FormattedAddress
	if addr == "" {
		addr = r.Vicinity
	}
	p := Place{Name: clean(r.Name, maxName), Address: clean(addr, maxAddress), Point: pt, MapURL: googlePlaceURL(pt)}
	if len(r.Types) > 0 {
		p.Type = clean(r.Types[0], 80)
		p.Level = p.Type
	}
	if p.Name == "" {
		p.Name, p.Address = p.Address, ""
	}
	if centre != nil {
		m := distanceM(*centre, pt)
		p.DistanceM = &m
	}
	return p, true
}

type googleResults struct {
	googleStatus
	Results       []googleResult `json:"results"`
	NextPageToken string         `json:"next_page_token"`
}

// geocode is the Geocoding API: an address (or "lat,lng", reverse) to its candidates.
func (c googleClient) geocode(ctx context.Context, address string) ([]Place, error) {
	q := url.Values{"address": {address}}
	if pt, ok := parseCoords(address); ok {
		q = url.Values{"latlng": {pt.latLng()}}
	}
	var r googleResults
	if err := c.get(ctx, "/maps/api/geocode/json", q, address, &r); err != nil {
		return nil, err
	}
	var out []Place
	for _, g := range r.Results {
		if p, ok := g.place(nil); ok && len(out) < maxGeocodes {
			out = append(out, p)
		}
	}
	return out, nil
}

// googleMaxResults and googleMaxPages are what Places pages to at most: 20 a page, three
// pages. A token is opaque but short; one longer than maxToken is not Google's.
const (
	googleMaxResults = 60
	googleMaxPages   = 3
	maxToken         = 4096
)

// places runs a Text Search (with a query) or a Nearby Search (a type around centre) and
// follows next_page_token up to limit places.
func (c googleClient) places(ctx context.Context, query, kind string, centre *Point, radius, limit int) ([]Place, error) {
	path, q := "/maps/api/place/textsearch/json", url.Values{}
	if query != "" {
		q.Set("query", query)
	} else {
		path = "/maps/api/place/nearbysearch/json"
	}
	if centre != nil {
		q.Set("location", centre.latLng())
		q.Set("radius", strconv.Itoa(radius))
	}
	if kind != "" {
		q.Set("type", kind)
	}
	limit = min(limit, googleMaxResults)
	var out []Place
	for page := 1; ; page++ {
		r, err := c.page(ctx, path, q, query)
		if err != nil {
			return nil, err
		}
		for _, g := range r.Results {
			if p, ok := g.place(centre); ok && len(out) < limit {
				out = append(out, p)
			}
		}
		if r.NextPageToken == "" || len(out) >= limit || page == googleMaxPages {
			return out, nil
		}
		if len(r.NextPageToken) > maxToken {
			return nil, errBadResponse(Google, fmt.Errorf("a next_page_token of %d bytes", len(r.NextPageToken)))
		}
		q = url.Values{"pagetoken": {r.NextPageToken}}
	}
}

// page asks for one page. A page token used too early is INVALID_REQUEST, so a token
// request waits first and, refused, waits again (three tries).
func (c googleClient) page(ctx context.Context, path string, q url.Values, what string) (googleResults, error) {
	tries := 1
	if q.Has("pagetoken") {
		tries = 3
	}
	var r googleResults
	var err error
	for i := 0; i < tries; i++ {
		if tries > 1 {
			if err := sleep(ctx, c.pageDelay); err != nil {
				return r, apperr.Wrap(err, apperr.Canceled, "Google Maps: stopped")
			}
		}
		r = googleResults{}
		err = c.get(ctx, path, url.Values(cloneValues(q)), what, &r)
		if !(tries > 1 && apperr.Is(err, apperr.LocationRejected) && r.Status == "INVALID_REQUEST") {
			return r, err
		}
	}
	return r, err
}

func cloneValues(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

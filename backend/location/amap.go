package location

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// amapClient speaks Amap's Web Service API (restapi.amap.com, v3 and v5). Every answer
// carries status ("1" is success), info and infocode; failures mostly come as HTTP 200
// with status "0", so the infocode decides the error. Empty values come as [] (flexStr,
// flexObj). Coordinates are "lng,lat" in GCJ-02, both ways.
type amapClient struct {
	base, key string
	http      *http.Client
}

type amapStatus struct {
	Status   flexStr `json:"status"`
	Info     flexStr `json:"info"`
	Infocode flexStr `json:"infocode"`
}

func (s amapStatus) st() amapStatus { return s }

type amapAnswer interface{ st() amapStatus }

// The documented infocodes: a refused key (invalid, service not enabled, wrong IP,
// domain, signature or platform, no permission, recycled), a quota or rate limit (daily,
// per-second, per-IP, abroad), a busy service (gateway timeout, busy, unavailable) and a
// route Amap cannot plan.
var (
	amapKeyCodes   = codeSet("10001 10002 10005 10006 10007 10008 10009 10012 10013")
	amapQuotaCodes = codeSet("10003 10004 10010 10014 10019 10020 10021 10044 10045")
	amapBusyCodes  = codeSet("10015 10016 10017")
	amapRouteCodes = codeSet("20800 20801 20802 20803")
)

func codeSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, c := range strings.Fields(s) {
		out[c] = true
	}
	return out
}

func (s amapStatus) check(what string) error {
	if string(s.Status) == "1" {
		return nil
	}
	code := clean(string(s.Infocode), 10)
	reason := short(string(s.Info) + " (" + code + ")")
	switch {
	case amapKeyCodes[code]:
		return errKeyInvalid(Amap, reason)
	case amapQuotaCodes[code]:
		return errRateLimited(Amap, reason)
	case amapBusyCodes[code]:
		return failure(apperr.LocationUnreachable, Amap, "the service is busy (%s)", reason).WithParam("reason", reason)
	case amapRouteCodes[code]:
		return failure(apperr.LocationNotFound, Amap, "nothing found for %s (%s)", apperr.Quote(what), reason).
			WithParam("what", apperr.Quote(what)).WithParam("reason", reason)
	}
	return errRejected(Amap, reason)
}

func (c amapClient) get(ctx context.Context, path string, q url.Values, what string, out amapAnswer) error {
	q.Set("key", c.key)
	q.Set("output", "json")
	if err := getJSON(ctx, c.http, Amap, http.MethodGet, withQuery(c.base, path, q), nil, out); err != nil {
		return err
	}
	return out.st().check(what)
}

type amapGeocodes struct {
	amapStatus
	Geocodes []struct {
		FormattedAddress flexStr `json:"formatted_address"`
		Location         flexStr `json:"location"`
		Level            flexStr `json:"level"`
		Citycode         flexStr `json:"citycode"`
	} `json:"geocodes"`
}

// geocode is /v3/geocode/geo: an address to its candidates, best first.
func (c amapClient) geocode(ctx context.Context, address string) ([]Place, error) {
	var r amapGeocodes
	if err := c.get(ctx, "/v3/geocode/geo", url.Values{"address": {address}}, address, &r); err != nil {
		return nil, err
	}
	var out []Place
	for _, g := range r.Geocodes {
		pt, ok := parseLngLat(string(g.Location))
		if !ok || len(out) == maxGeocodes {
			continue
		}
		name := clean(string(g.FormattedAddress), maxAddress)
		out = append(out, amapPlace(Place{Name: name, Point: pt, Level: clean(string(g.Level), 20), City: clean(string(g.Citycode), 10)}))
	}
	return out, nil
}

type amapRegeo struct {
	amapStatus
	Regeocode flexObj[struct {
		FormattedAddress flexStr `json:"formatted_address"`
		AddressComponent flexObj[struct {
			Citycode flexStr `json:"citycode"`
		}] `json:"addressComponent"`
	}] `json:"regeocode"`
}

// regeo is /v3/geocode/regeo: a point's address and city code.
func (c amapClient) regeo(ctx context.Context, pt Point) (Place, error) {
	var r amapRegeo
	g := pt.GCJ()
	if err := c.get(ctx, "/v3/geocode/regeo", url.Values{"location": {g.lngLat()}}, g.lngLat(), &r); err != nil {
		return Place{}, err
	}
	name := clean(string(r.Regeocode.V.FormattedAddress), maxAddress)
	if name == "" {
		name = g.latLng()
	}
	return amapPlace(Place{Name: name, Point: g, City: clean(string(r.Regeocode.V.AddressComponent.V.Citycode), 10)}), nil
}

type amapIP struct {
	amapStatus
	Province  flexStr `json:"province"`
	City      flexStr `json:"city"`
	Rectangle flexStr `json:"rectangle"`
}

// locate is /v3/ip without an address: the caller's own IP. ok is false when Amap has no
// place for it (any address outside mainland China: its fields come back empty).
func (c amapClient) locate(ctx context.Context) (Place, bool, error) {
	var r amapIP
	if err := c.get(ctx, "/v3/ip", url.Values{}, "this network", &r); err != nil {
		return Place{}, false, err
	}
	corners := strings.Split(string(r.Rectangle), ";")
	if len(corners) != 2 {
		return Place{}, false, nil
	}
	a, ok1 := parseLngLat(corners[0])
	b, ok2 := parseLngLat(corners[1])
	if !ok1 || !ok2 {
		return Place{}, false, nil
	}
	centre := Point{Lat: (a.Lat + b.Lat) / 2, Lng: (a.Lng + b.Lng) / 2, Datum: GCJ02}
	name := clean(strings.TrimSpace(string(r.Province)+" "+string(r.City)), maxName)
	if string(r.Province) == string(r.City) {
		name = clean(string(r.City), maxName)
	}
	return amapPlace(Place{Name: name, Point: centre, Level: "city"}), true, nil
}

// amapPageSize and amapMaxPages are v5 place search's limits: at most 25 a page, and
// pages numbered up to 100.
const (
	amapPageSize = 25
	amapMaxPages = 100
)

type amapPOIs struct {
	amapStatus
	Pois []struct {
		Name     flexStr `json:"name"`
		Location flexStr `json:"location"`
		Type     flexStr `json:"type"`
		Address  flexStr `json:"address"`
		Pname    flexStr `json:"pname"`
		Cityname flexStr `json:"cityname"`
		Adname   flexStr `json:"adname"`
		Distance flexStr `json:"distance"`
	} `json:"pois"`
}

// places pages through a v5 search (/v5/place/text or /v5/place/around) until limit
// places, a short page, or Amap's last page. centre, when set, gives each place its
// distance where Amap did not.
func (c amapClient) places(ctx context.Context, path string, q url.Values, limit int, centre *Point) ([]Place, error) {
	var out []Place
	for page := 1; page <= amapMaxPages && len(out) < limit; page++ {
		q.Set("page_size", strconv.Itoa(amapPageSize))
		q.Set("page_num", strconv.Itoa(page))
		var r amapPOIs
		if err := c.get(ctx, path, q, q.Get("keywords"), &r); err != nil {
			return nil, err
		}
		for _, poi := range r.Pois {
			pt, ok := parseLngLat(string(poi.Location))
			if !ok || len(out) == limit {
				continue
			}
			addr := strings.TrimSpace(string(poi.Pname) + string(poi.Cityname) + string(poi.Adname) + string(poi.Address))
			p := Place{Name: clean(string(poi.Name), maxName), Address: clean(addr, maxAddress), Point: pt, Type: clean(string(poi.Type), 80)}
			if d := strings.TrimSpace(string(poi.Distance)); d != "" {
				m := poi.Distance.num()
				p.DistanceM = &m
			} else if centre != nil {
				m := distanceM(*centre, pt)
				p.DistanceM = &m
			}
			out = append(out, amapPlace(p))
		}
		if len(r.Pois) < amapPageSize {
			break
		}
	}
	return out, nil
}

// amapPlace adds the map links: Amap's own marker (GCJ-02) and Google's (converted).
func amapPlace(p Place) Place {
	p.MapURL = googlePlaceURL(p.Point)
	p.AmapURL = amapMarkerURL(p.Point, p.Name)
	return p
}

package location

import (
	"context"
	"net/url"
	"strconv"
)

// Request is one checked location_query call.
type Request struct {
	Action      string
	Location    string
	Destination string
	Query       string
	Radius      int
	Mode        string
	Waypoints   []string
	Type        string
	Region      Region
	Language    string
	Limit       int
}

// stops are a route's points in order: the start, the waypoints, the destination.
func (r Request) stops() []string {
	out := append([]string{r.Location}, r.Waypoints...)
	return append(out, r.Destination)
}

func amapQuery(ctx context.Context, c amapClient, r Request) (Display, error) {
	d := newDisplay(r.Action, Amap)
	switch r.Action {
	case "geocode":
		var err error
		if pt, ok := parseCoords(r.Location); ok {
			var p Place
			p, err = c.regeo(ctx, pt)
			d.Places = []Place{p}
		} else {
			d.Places, err = c.geocode(ctx, r.Location)
		}
		return d, err
	case "search_places":
		return amapSearch(ctx, c, r, d)
	}
	route, err := amapTrip(ctx, c, r)
	d.Route = route
	return d, err
}

// amapResolve turns an address or "lat,lng" (WGS-84) into a place in GCJ-02. Transit
// planning needs the city code, which only a lookup gives.
func amapResolve(ctx context.Context, c amapClient, text string, needCity bool) (Place, error) {
	if pt, ok := parseCoords(text); ok {
		if needCity {
			return c.regeo(ctx, pt)
		}
		return amapPlace(Place{Name: text, Point: pt.GCJ()}), nil
	}
	found, err := c.geocode(ctx, text)
	if err != nil {
		return Place{}, err
	}
	if len(found) == 0 {
		return Place{}, errNotFound(Amap, text)
	}
	return found[0], nil
}

// wideLevels are geocode levels that name an area rather than a point: a search there is
// a keyword search limited to the area, not a radius around its centre.
var wideLevels = map[string]bool{"国家": true, "省": true, "市": true, "区县": true}

func amapSearch(ctx context.Context, c amapClient, r Request, d Display) (Display, error) {
	d.Query = r.Query
	q := url.Values{}
	if r.Query != "" {
		q.Set("keywords", r.Query)
	}
	if r.Type != "" {
		q.Set("types", r.Type)
	}
	if r.Location == "" {
		places, err := c.places(ctx, "/v5/place/text", q, r.Limit, nil)
		d.Places = places
		return d, err
	}
	centre, err := amapResolve(ctx, c, r.Location, false)
	if err != nil {
		return d, err
	}
	d.Center = &centre
	var places []Place
	if wideLevels[centre.Level] {
		q.Set("region", firstNonEmpty(centre.City, r.Location))
		q.Set("city_limit", "true")
		places, err = c.places(ctx, "/v5/place/text", q, r.Limit, nil)
	} else {
		q.Set("location", centre.lngLat())
		q.Set("radius", strconv.Itoa(r.Radius))
		places, err = c.places(ctx, "/v5/place/around", q, r.Limit, &centre.Point)
	}
	d.Places = places
	return d, err
}

// amapTrip resolves every stop, then plans each leg on its own and joins them: Amap's
// route APIs other than driving take no waypoints, so every mode is planned the same way.
func amapTrip(ctx context.Context, c amapClient, r Request) (*Route, error) {
	texts := r.stops()
	route := &Route{Mode: r.Mode}
	pts := make([]Point, 0, len(texts))
	for _, t := range texts {
		p, err := amapResolve(ctx, c, t, r.Mode == "transit")
		if err != nil {
			return nil, err
		}
		route.Points = append(route.Points, p)
		pts = append(pts, p.Point)
	}
	for i := 0; i+1 < len(route.Points); i++ {
		leg, err := c.leg(ctx, route.Points[i], route.Points[i+1], r.Mode)
		if err != nil {
			return nil, err
		}
		route.Legs = append(route.Legs, leg)
		route.DistanceM += leg.DistanceM
		route.DurationS += leg.DurationS
	}
	route.MapURL = googleDirURL(pts, r.Mode)
	if len(route.Points) == 2 {
		route.AmapURL = amapNavURL(route.Points[0], route.Points[1], r.Mode)
	}
	return route, nil
}

func googleQuery(ctx context.Context, c googleClient, r Request) (Display, error) {
	d := newDisplay(r.Action, Google)
	switch r.Action {
	case "geocode":
		var err error
		d.Places, err = c.geocode(ctx, r.Location)
		return d, err
	case "search_places":
		d.Query = r.Query
		var centre *Point
		if r.Location != "" {
			p, err := googleResolve(ctx, c, r.Location)
			if err != nil {
				return d, err
			}
			d.Center, centre = &p, &p.Point
		}
		if r.Query == "" && centre == nil {
			return d, invalid("a search by type alone needs location (Nearby Search searches around a point)")
		}
		var err error
		d.Places, err = c.places(ctx, r.Query, r.Type, centre, r.Radius, r.Limit)
		return d, err
	}
	route, err := googleTrip(ctx, c, r)
	d.Route = route
	return d, err
}

func googleResolve(ctx context.Context, c googleClient, text string) (Place, error) {
	if pt, ok := parseCoords(text); ok {
		return Place{Name: text, Point: pt, MapURL: googlePlaceURL(pt)}, nil
	}
	found, err := c.geocode(ctx, text)
	if err != nil {
		return Place{}, err
	}
	if len(found) == 0 {
		return Place{}, errNotFound(Google, text)
	}
	return found[0], nil
}

// googleTrip is one Directions request through the waypoints, except for transit, which
// Directions plans only between two points: a trip is then planned leg by leg.
func googleTrip(ctx context.Context, c googleClient, r Request) (*Route, error) {
	texts := r.stops()
	route := &Route{Mode: r.Mode}
	pairs := [][]string{texts}
	if r.Mode == "transit" {
		pairs = nil
		for i := 0; i+1 < len(texts); i++ {
			pairs = append(pairs, texts[i:i+2])
		}
	}
	for _, pts := range pairs {
		legs, stops, err := c.directions(ctx, pts, r.Mode)
		if err != nil {
			return nil, err
		}
		if len(route.Points) > 0 {
			stops = stops[1:]
		}
		route.Points = append(route.Points, stops...)
		for _, l := range legs {
			route.Legs = append(route.Legs, l)
			route.DistanceM += l.DistanceM
			route.DurationS += l.DurationS
		}
	}
	pts := make([]Point, len(route.Points))
	for i, p := range route.Points {
		pts[i] = p.Point
	}
	route.MapURL = googleDirURL(pts, r.Mode)
	return route, nil
}

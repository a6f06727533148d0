package location

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

type googleValue struct {
	Value int `json:"value"`
}

func (v googleValue) num() int { return max(0, min(v.Value, 1e9)) }

type googleStep struct {
	HTMLInstructions string      `json:"html_instructions"`
	Distance         googleValue `json:"distance"`
	Duration         googleValue `json:"duration"`
	TransitDetails   *struct {
		Line struct {
			Name      string `json:"name"`
			ShortName string `json:"short_name"`
		} `json:"line"`
		DepartureStop struct {
			Name string `json:"name"`
		} `json:"departure_stop"`
		ArrivalStop struct {
			Name string `json:"name"`
		} `json:"arrival_stop"`
		NumStops int `json:"num_stops"`
	} `json:"transit_details"`
}

type googleLeg struct {
	Distance      googleValue  `json:"distance"`
	Duration      googleValue  `json:"duration"`
	StartAddress  string       `json:"start_address"`
	EndAddress    string       `json:"end_address"`
	StartLocation googleLatLng `json:"start_location"`
	EndLocation   googleLatLng `json:"end_location"`
	Steps         []googleStep `json:"steps"`
}

type googleDirections struct {
	googleStatus
	Routes []struct {
		Legs []googleLeg `json:"legs"`
	} `json:"routes"`
}

// directions is the Directions API through points (addresses or "lat,lng"), in order:
// one request with waypoints. It returns the legs and the places Google resolved the
// points to.
func (c googleClient) directions(ctx context.Context, points []string, mode string) ([]Leg, []Place, error) {
	q := url.Values{"origin": {points[0]}, "destination": {points[len(points)-1]}, "mode": {mode}}
	if len(points) > 2 {
		q.Set("waypoints", strings.Join(points[1:len(points)-1], "|"))
	}
	what := fmt.Sprintf("a %s route from %s to %s", mode, points[0], points[len(points)-1])
	var r googleDirections
	if err := c.get(ctx, "/maps/api/directions/json", q, what, &r); err != nil {
		return nil, nil, err
	}
	if len(r.Routes) == 0 || len(r.Routes[0].Legs) == 0 {
		return nil, nil, errNotFound(Google, what)
	}
	var legs []Leg
	var stops []Place
	for i, l := range r.Routes[0].Legs {
		leg := Leg{From: clean(l.StartAddress, maxAddress), To: clean(l.EndAddress, maxAddress), DistanceM: l.Distance.num(), DurationS: l.Duration.num()}
		for _, s := range l.Steps {
			leg.Steps = append(leg.Steps, googleStepOf(s))
		}
		legs = append(legs, capSteps(leg))
		if i == 0 {
			stops = append(stops, googleStop(leg.From, l.StartLocation))
		}
		stops = append(stops, googleStop(leg.To, l.EndLocation))
	}
	return legs, stops, nil
}

func googleStop(name string, at googleLatLng) Place {
	pt, _ := at.point()
	return Place{Name: name, Point: pt, MapURL: googlePlaceURL(pt)}
}

func googleStepOf(s googleStep) Step {
	st := Step{Text: stripHTML(s.HTMLInstructions, maxInstruction), DistanceM: s.Distance.num(), DurationS: s.Duration.num()}
	if t := s.TransitDetails; t != nil {
		st.Line = clean(firstNonEmpty(t.Line.ShortName, t.Line.Name), maxName)
		st.From, st.To = clean(t.DepartureStop.Name, maxName), clean(t.ArrivalStop.Name, maxName)
		st.Stops = max(0, min(t.NumStops, 1000))
	}
	return st
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// geolocate is the Geolocation API with only the caller's IP to go on (considerIp):
// the position and how far off it may be, in metres.
func (c googleClient) geolocate(ctx context.Context) (Point, int, error) {
	var r struct {
		Location googleLatLng `json:"location"`
		Accuracy float64      `json:"accuracy"`
	}
	u := withQuery(c.geoBase, "/geolocation/v1/geolocate", url.Values{"key": {c.key}})
	body, _ := json.Marshal(map[string]bool{"considerIp": true})
	if err := getJSON(ctx, c.http, Google, http.MethodPost, u, strings.NewReader(string(body)), &r); err != nil {
		return Point{}, 0, err
	}
	pt, ok := r.Location.point()
	if !ok {
		return Point{}, 0, errBadResponse(Google, fmt.Errorf("no usable location in the answer"))
	}
	return pt, int(max(0, min(r.Accuracy, 1e7))), nil
}

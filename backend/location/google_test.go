package location

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

func googleResultsPage(page, n int, token string) map[string]any {
	var results []any
	for i := 0; i < n; i++ {
		results = append(results, map[string]any{"name": fmt.Sprintf("Café %d-%d", page, i+1), "formatted_address": fmt.Sprintf("%d Rue de Rivoli, Paris", i+1),
			"geometry": map[string]any{"location": map[string]any{"lat": 48.86 + float64(i)/1000, "lng": 2.33}}, "types": []string{"cafe", "food"}, "place_id": "x"})
	}
	out := map[string]any{"status": "OK", "results": results, "html_attributions": []any{}}
	if token != "" {
		out["next_page_token"] = token
	}
	return out
}

// TestGooglePlacesPaging: Text Search follows next_page_token up to 60 places; a token
// used before it is valid (INVALID_REQUEST) is tried again after the delay; a token
// request carries only the token and the key.
func TestGooglePlacesPaging(t *testing.T) {
	for _, c := range []struct{ limit, wantPlaces, wantRequests int }{{60, 60, 5}, {25, 25, 4}, {20, 20, 2}} {
		var early atomic.Bool
		google := newFakeMaps(t, map[string]func(url.Values) (int, any){
			"/maps/api/geocode/json": ok(map[string]any{"status": "OK", "results": []any{map[string]any{"formatted_address": "Louvre, Paris",
				"geometry": map[string]any{"location": map[string]any{"lat": 48.8606, "lng": 2.3376}}, "types": []string{"museum"}}}}),
			"/maps/api/place/textsearch/json": func(q url.Values) (int, any) {
				switch q.Get("pagetoken") {
				case "":
					return 200, googleResultsPage(1, 20, "t1")
				case "t1":
					if !early.Swap(true) {
						return 200, map[string]any{"status": "INVALID_REQUEST", "results": []any{}}
					}
					return 200, googleResultsPage(2, 20, "t2")
				}
				return 200, googleResultsPage(3, 20, "")
			},
		})
		d, err := testService(nil, google, bothKeys).Query(t.Context(), mustRequest(t, Input{Action: "search_places", Location: "Louvre", Query: "cafe", Limit: c.limit}))
		if err != nil {
			t.Fatal(err)
		}
		if d.Provider != "google" || d.Datum != WGS84 || len(d.Places) != c.wantPlaces || len(google.paths()) != c.wantRequests {
			t.Fatalf("limit %d: %d places, requests %v", c.limit, len(d.Places), google.paths())
		}
		q := google.query(1)
		if q.Get("query") != "cafe" || q.Get("location") != "48.860600,2.337600" || q.Get("radius") != "5000" || q.Get("key") != "google-key" {
			t.Fatalf("search query %v", q)
		}
		if c.wantRequests > 2 {
			if q := google.query(2); len(q) != 2 || q.Get("pagetoken") != "t1" {
				t.Fatalf("token query %v", q)
			}
		}
		p := d.Places[0]
		if p.Name != "Café 1-1" || p.Address != "1 Rue de Rivoli, Paris" || p.DistanceM == nil || *p.DistanceM < 500 || *p.DistanceM > 600 || p.Type != "cafe" || p.AmapURL != "" {
			t.Fatalf("place %+v", p)
		}
		if p.MapURL != "https://www.google.com/maps/search/?api=1&query=48.860000%2C2.330000" {
			t.Fatalf("link %s", p.MapURL)
		}
	}
}

// TestGoogleStatuses: Google's documented statuses in a 200 answer and its HTTP errors
// become the right errors; ZERO_RESULTS is an empty answer, not an error.
func TestGoogleStatuses(t *testing.T) {
	status := func(s, msg string) func(url.Values) (int, any) {
		return ok(map[string]any{"status": s, "error_message": msg, "results": []any{}})
	}
	cases := []struct {
		name string
		h    func(url.Values) (int, any)
		want apperr.Code
		text string
	}{
		{"zero", status("ZERO_RESULTS", ""), "", ""},
		{"quota", status("OVER_QUERY_LIMIT", "You have exceeded your rate-limit for this API."), apperr.LocationRateLimited, "OVER_QUERY_LIMIT: You have exceeded"},
		{"billing", status("OVER_DAILY_LIMIT", "Billing is not enabled"), apperr.LocationRateLimited, "OVER_DAILY_LIMIT"},
		{"denied", status("REQUEST_DENIED", "The provided API key is invalid."), apperr.LocationKeyInvalid, "The provided API key is invalid."},
		{"invalid", status("INVALID_REQUEST", ""), apperr.LocationRejected, "INVALID_REQUEST"},
		{"unknown", status("UNKNOWN_ERROR", ""), apperr.LocationUnreachable, "UNKNOWN_ERROR"},
		{"strange", status("<script>", ""), apperr.LocationBadResponse, "unknown status"},
		{"http 403", func(url.Values) (int, any) { return 403, "forbidden" }, apperr.LocationKeyInvalid, "HTTP 403"},
		{"http 429", func(url.Values) (int, any) { return 429, "" }, apperr.LocationRateLimited, "HTTP 429"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			google := newFakeMaps(t, map[string]func(url.Values) (int, any){"/maps/api/place/textsearch/json": c.h})
			d, err := testService(nil, google, bothKeys).Query(t.Context(), mustRequest(t, Input{Action: "search_places", Query: "museum"}))
			if c.want == "" {
				if err != nil || len(d.Places) != 0 || !strings.Contains(Format(d), `Nothing was found for "museum"`) {
					t.Fatalf("%v %+v", err, d)
				}
				return
			}
			ae := apperr.From(err)
			if ae.Code != c.want || !strings.Contains(ae.Message, c.text) || strings.Contains(ae.Message, "google-key") {
				t.Fatalf("%s: %s", ae.Code, ae.Message)
			}
		})
	}
}

func googleLegJSON(from, to string, lat float64) map[string]any {
	return map[string]any{"distance": map[string]any{"text": "1 km", "value": 1000}, "duration": map[string]any{"text": "5 mins", "value": 300},
		"start_address": from, "end_address": to, "start_location": map[string]any{"lat": lat, "lng": 2.3}, "end_location": map[string]any{"lat": lat + 0.01, "lng": 2.3},
		"steps": []any{
			map[string]any{"html_instructions": "Head <b>north</b> on <b>Rue&nbsp;de&nbsp;Rivoli</b><div style=\"font-size:0.9em\">Destination will be on the left</div>",
				"distance": map[string]any{"value": 400}, "duration": map[string]any{"value": 100}, "travel_mode": "DRIVING"},
			map[string]any{"html_instructions": "Take the 72", "distance": map[string]any{"value": 600}, "duration": map[string]any{"value": 200}, "travel_mode": "TRANSIT",
				"transit_details": map[string]any{"line": map[string]any{"name": "Bus 72", "short_name": "72"}, "departure_stop": map[string]any{"name": "Louvre"}, "arrival_stop": map[string]any{"name": "Concorde"}, "num_stops": 3}},
		}}
}

// TestGoogleDirections: a trip is one request with waypoints (its legs back in order);
// transit, which Directions plans between two points only, is asked leg by leg.
func TestGoogleDirections(t *testing.T) {
	for _, c := range []struct {
		mode     string
		requests int
	}{{"driving", 1}, {"transit", 2}} {
		google := newFakeMaps(t, map[string]func(url.Values) (int, any){
			"/maps/api/directions/json": func(q url.Values) (int, any) {
				stops := append([]string{q.Get("origin")}, strings.Split(q.Get("waypoints"), "|")...)
				stops = append(stops, q.Get("destination"))
				var legs []any
				for i := 0; i+1 < len(stops); i++ {
					if stops[i+1] == "" {
						continue
					}
					from := stops[i]
					if from == "" {
						from = stops[0]
					}
					legs = append(legs, googleLegJSON(from, stops[i+1], 48.8+float64(i)/10))
				}
				return 200, map[string]any{"status": "OK", "routes": []any{map[string]any{"summary": "x", "legs": legs}}}
			},
		})
		in := Input{Action: "plan_trip", Location: "Louvre", Waypoints: []string{"Orsay"}, Destination: "Eiffel Tower", Mode: c.mode}
		d, err := testService(nil, google, bothKeys).Query(t.Context(), mustRequest(t, in))
		if err != nil {
			t.Fatal(err)
		}
		r := d.Route
		if len(google.paths()) != c.requests || len(r.Legs) != 2 || r.DistanceM != 2000 || r.DurationS != 600 || len(r.Points) != 3 {
			t.Fatalf("%s: requests %v, route %+v", c.mode, google.paths(), r)
		}
		if c.mode == "driving" && (google.query(0).Get("waypoints") != "Orsay" || google.query(0).Get("mode") != "driving") {
			t.Fatalf("query %v", google.query(0))
		}
		if st := r.Legs[0].Steps[0]; st.Text != "Head north on Rue de Rivoli Destination will be on the left" {
			t.Fatalf("step text %q", st.Text)
		}
		if st := r.Legs[0].Steps[1]; st.Line != "72" || st.From != "Louvre" || st.To != "Concorde" || st.Stops != 3 {
			t.Fatalf("transit step %+v", st)
		}
		if !strings.HasPrefix(r.MapURL, "https://www.google.com/maps/dir/?") || !strings.Contains(r.MapURL, "waypoints=") || !strings.Contains(r.MapURL, "travelmode="+c.mode) {
			t.Fatalf("link %s", r.MapURL)
		}
	}
}

// TestGoogleNoRoute: ZERO_RESULTS for a route is "not found".
func TestGoogleNoRoute(t *testing.T) {
	google := newFakeMaps(t, map[string]func(url.Values) (int, any){
		"/maps/api/directions/json": ok(map[string]any{"status": "ZERO_RESULTS", "routes": []any{}}),
	})
	_, err := testService(nil, google, bothKeys).Query(t.Context(), mustRequest(t, Input{Action: "get_directions", Location: "Paris", Destination: "New York", Mode: "walking"}))
	if ae := apperr.From(err); ae.Code != apperr.LocationNotFound || !strings.Contains(ae.Message, "walking route from Paris to New York") {
		t.Fatalf("%s %s", ae.Code, ae.Message)
	}
}

// TestGooglePagingBounded: a service that hands out tokens forever is asked three pages,
// as Google's own limit is; an oversized token is not Google's and fails the answer.
func TestGooglePagingBounded(t *testing.T) {
	endless := newFakeMaps(t, map[string]func(url.Values) (int, any){
		"/maps/api/place/textsearch/json": ok(map[string]any{"status": "OK", "results": []any{}, "next_page_token": "again"}),
	})
	d, err := testService(nil, endless, bothKeys).Query(t.Context(), mustRequest(t, Input{Action: "search_places", Query: "cafe"}))
	if err != nil || len(d.Places) != 0 || len(endless.paths()) != googleMaxPages {
		t.Fatalf("%v, %d requests", err, len(endless.paths()))
	}
	huge := newFakeMaps(t, map[string]func(url.Values) (int, any){
		"/maps/api/place/textsearch/json": ok(googleResultsPage(1, 20, strings.Repeat("t", maxToken+1))),
	})
	_, err = testService(nil, huge, bothKeys).Query(t.Context(), mustRequest(t, Input{Action: "search_places", Query: "cafe", Limit: 40}))
	if ae := apperr.From(err); ae.Code != apperr.LocationBadResponse || len(huge.paths()) != 1 {
		t.Fatalf("%s %s", ae.Code, ae.Message)
	}
}

// TestGoogleLanguage: the call's language wins; without one the window's is asked for.
func TestGoogleLanguage(t *testing.T) {
	google := newFakeMaps(t, map[string]func(url.Values) (int, any){"/maps/api/geocode/json": ok(map[string]any{"status": "ZERO_RESULTS"})})
	svc := testService(nil, google, bothKeys)
	svc.d.Language = func(context.Context) string { return "zh-CN" }
	for _, in := range []Input{{Action: "geocode", Location: "Big Ben"}, {Action: "geocode", Location: "Big Ben", Language: "fr"}} {
		if _, err := svc.Query(t.Context(), mustRequest(t, in)); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := google.query(0).Get("language"), google.query(1).Get("language"); a != "zh-CN" || b != "fr" {
		t.Fatalf("languages %q %q", a, b)
	}
	// A search by type alone has no point to search around.
	_, err := svc.Query(t.Context(), mustRequest(t, Input{Action: "search_places", Type: "museum"}))
	if !apperr.Is(err, apperr.InvalidArgument) || len(google.paths()) != 2 {
		t.Fatalf("%v", err)
	}
}

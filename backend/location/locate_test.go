package location

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

func geolocateOK() func(url.Values) (int, any) {
	return ok(map[string]any{"location": map[string]any{"lat": 51.5034, "lng": -0.1276}, "accuracy": 1800.4})
}

func reverseOK() func(url.Values) (int, any) {
	return ok(map[string]any{"status": "OK", "results": []any{map[string]any{"formatted_address": "Westminster, London",
		"geometry": map[string]any{"location": map[string]any{"lat": 51.5034, "lng": -0.1276}}}}})
}

// TestLocate: with Amap's key Amap places a mainland address; an address it cannot place
// (empty fields) goes to Google's Geolocation API when its key is set; with one key only
// that service is asked.
func TestLocate(t *testing.T) {
	amapIn := ok(amapOK(map[string]any{"province": "北京市", "city": "北京市", "adcode": "110000", "rectangle": "116.0119343,39.66127144;116.7829835,40.2164962"}))
	amapOut := ok(amapOK(map[string]any{"province": []any{}, "city": []any{}, "adcode": []any{}, "rectangle": []any{}}))
	cases := []struct {
		name   string
		amapIP func(url.Values) (int, any)
		keys   fakeSecrets
		region string
		want   string // provider, or an error code
		place  string
	}{
		{"amap places it", amapIn, bothKeys, "", "amap", "北京市"},
		{"abroad: google", amapOut, bothKeys, "", "google", "Westminster, London"},
		{"abroad, amap only", amapOut, fakeSecrets{SecretAmap: "k"}, "", string(apperr.LocationNotFound), ""},
		{"google only", amapIn, fakeSecrets{SecretGoogle: "k"}, "", "google", "Westminster, London"},
		{"forced cn", amapOut, bothKeys, "cn", string(apperr.LocationNotFound), ""},
		{"forced global", amapIn, bothKeys, "global", "google", "Westminster, London"},
		{"no keys", amapIn, fakeSecrets{}, "", string(apperr.LocationKeyRequired), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			amap := newFakeMaps(t, map[string]func(url.Values) (int, any){"/v3/ip": c.amapIP})
			google := newFakeMaps(t, map[string]func(url.Values) (int, any){"/geolocation/v1/geolocate": geolocateOK(), "/maps/api/geocode/json": reverseOK()})
			d, err := testService(amap, google, c.keys).Query(t.Context(), mustRequest(t, Input{Action: "locate", Region: c.region}))
			if err != nil {
				if ae := apperr.From(err); string(ae.Code) != c.want {
					t.Fatalf("error %s %s", ae.Code, ae.Message)
				}
				return
			}
			if d.Provider != c.want || len(d.Places) != 1 || d.Places[0].Name != c.place {
				t.Fatalf("%+v", d)
			}
			if d.Provider == "amap" && (d.Places[0].Datum != GCJ02 || d.Places[0].Lat < 39.9 || d.Places[0].Lat > 40) {
				t.Fatalf("amap centre %+v", d.Places[0])
			}
			if d.Provider == "google" {
				if d.AccuracyM != 1800 || !strings.Contains(Format(d), "within about 1.8 km") {
					t.Fatalf("accuracy %d: %s", d.AccuracyM, Format(d))
				}
				i := len(google.paths()) - 2
				if google.paths()[i] != "/geolocation/v1/geolocate" || google.requests[i].Method != "POST" || google.bodies[i] != `{"considerIp":true}` {
					t.Fatalf("geolocate request %v %q", google.paths(), google.bodies)
				}
				if google.query(i+1).Get("latlng") != "51.503400,-0.127600" {
					t.Fatalf("reverse geocode %v", google.query(i+1))
				}
			}
		})
	}
}

// TestGeolocateErrors: the Geolocation API's error bodies ({"error":{"errors":[{"reason"}]}})
// pick the error; a failed address lookup after a good position is a note, not a failure.
func TestGeolocateErrors(t *testing.T) {
	body := func(code int, reason, msg string) func(url.Values) (int, any) {
		return func(url.Values) (int, any) {
			return code, map[string]any{"error": map[string]any{"code": code, "message": msg, "errors": []any{map[string]any{"domain": "geolocation", "reason": reason, "message": msg}}}}
		}
	}
	for _, c := range []struct {
		h    func(url.Values) (int, any)
		want apperr.Code
	}{
		{body(404, "notFound", "Requested entity was not found."), apperr.LocationNotFound},
		{body(403, "dailyLimitExceeded", "Daily limit exceeded"), apperr.LocationRateLimited},
		{body(400, "keyInvalid", "Bad key"), apperr.LocationKeyInvalid},
		{body(400, "parseError", "Parse error"), apperr.LocationRejected},
	} {
		google := newFakeMaps(t, map[string]func(url.Values) (int, any){"/geolocation/v1/geolocate": c.h})
		_, err := testService(nil, google, fakeSecrets{SecretGoogle: "k"}).Query(t.Context(), mustRequest(t, Input{Action: "locate"}))
		if ae := apperr.From(err); ae.Code != c.want {
			t.Errorf("want %s, got %s %s", c.want, ae.Code, ae.Message)
		}
	}
	google := newFakeMaps(t, map[string]func(url.Values) (int, any){"/geolocation/v1/geolocate": geolocateOK(),
		"/maps/api/geocode/json": ok(map[string]any{"status": "REQUEST_DENIED", "error_message": "This API project is not authorized to use this API."})})
	d, err := testService(nil, google, fakeSecrets{SecretGoogle: "k"}).Query(t.Context(), mustRequest(t, Input{Action: "locate"}))
	if err != nil || d.Places[0].Name != "51.503400,-0.127600" || !strings.Contains(d.Note, "not authorized") || !strings.Contains(Format(d), "not authorized") {
		t.Fatalf("%v %+v", err, d)
	}
}

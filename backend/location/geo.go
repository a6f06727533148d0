package location

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// Datum names the coordinate system a point is in. Amap answers in GCJ-02, the datum
// mainland Chinese maps are required to use, which is offset from WGS-84 (GPS, Google) by
// up to several hundred metres; every point says which it is so nothing mixes them.
type Datum string

// The two datums Cairn's maps speak.
const (
	WGS84 Datum = "wgs84"
	GCJ02 Datum = "gcj02"
)

// Point is a position in a named datum.
type Point struct {
	Lat   float64 `json:"lat"`
	Lng   float64 `json:"lng"`
	Datum Datum   `json:"datum"`
}

// valid refuses what no map has: NaN, infinities, out-of-range degrees. A provider's
// answer is not trusted to be sane.
func (p Point) valid() bool {
	return !math.IsNaN(p.Lat) && !math.IsNaN(p.Lng) && p.Lat >= -90 && p.Lat <= 90 && p.Lng >= -180 && p.Lng <= 180
}

// WGS returns p in WGS-84 (a GCJ-02 point converted, a WGS-84 one as it is).
func (p Point) WGS() Point {
	if p.Datum != GCJ02 {
		return p
	}
	lat, lng := gcjToWGS(p.Lat, p.Lng)
	return Point{Lat: lat, Lng: lng, Datum: WGS84}
}

// GCJ returns p in GCJ-02, as Amap expects its input.
func (p Point) GCJ() Point {
	if p.Datum == GCJ02 {
		return p
	}
	lat, lng := wgsToGCJ(p.Lat, p.Lng)
	return Point{Lat: lat, Lng: lng, Datum: GCJ02}
}

// latLng is "lat,lng" with six decimals (about 0.1 m), Google's order.
func (p Point) latLng() string { return fmt.Sprintf("%.6f,%.6f", p.Lat, p.Lng) }

// lngLat is "lng,lat", Amap's order.
func (p Point) lngLat() string { return fmt.Sprintf("%.6f,%.6f", p.Lng, p.Lat) }

// The constants of the published GCJ-02 transform: the Krasovsky 1940 ellipsoid.
const (
	krasovskyA  = 6378245.0
	krasovskyEE = 0.00669342162296594323
)

// outOfChina is the transform's own rough box: outside it GCJ-02 equals WGS-84.
func outOfChina(lat, lng float64) bool {
	return lng < 72.004 || lng > 137.8347 || lat < 0.8293 || lat > 55.8271
}

func shiftLat(x, y float64) float64 {
	r := -100.0 + 2.0*x + 3.0*y + 0.2*y*y + 0.1*x*y + 0.2*math.Sqrt(math.Abs(x))
	r += (20.0*math.Sin(6.0*x*math.Pi) + 20.0*math.Sin(2.0*x*math.Pi)) * 2.0 / 3.0
	r += (20.0*math.Sin(y*math.Pi) + 40.0*math.Sin(y/3.0*math.Pi)) * 2.0 / 3.0
	r += (160.0*math.Sin(y/12.0*math.Pi) + 320*math.Sin(y*math.Pi/30.0)) * 2.0 / 3.0
	return r
}

func shiftLng(x, y float64) float64 {
	r := 300.0 + x + 2.0*y + 0.1*x*x + 0.1*x*y + 0.1*math.Sqrt(math.Abs(x))
	r += (20.0*math.Sin(6.0*x*math.Pi) + 20.0*math.Sin(2.0*x*math.Pi)) * 2.0 / 3.0
	r += (20.0*math.Sin(x*math.Pi) + 40.0*math.Sin(x/3.0*math.Pi)) * 2.0 / 3.0
	r += (150.0*math.Sin(x/12.0*math.Pi) + 300.0*math.Sin(x/30.0*math.Pi)) * 2.0 / 3.0
	return r
}

// gcjOffset is how far GCJ-02 puts a WGS-84 point, in degrees.
func gcjOffset(lat, lng float64) (dLat, dLng float64) {
	if outOfChina(lat, lng) {
		return 0, 0
	}
	dLat, dLng = shiftLat(lng-105.0, lat-35.0), shiftLng(lng-105.0, lat-35.0)
	rad := lat / 180.0 * math.Pi
	magic := 1 - krasovskyEE*math.Sin(rad)*math.Sin(rad)
	sqrtMagic := math.Sqrt(magic)
	dLat = (dLat * 180.0) / ((krasovskyA * (1 - krasovskyEE)) / (magic * sqrtMagic) * math.Pi)
	dLng = (dLng * 180.0) / (krasovskyA / sqrtMagic * math.Cos(rad) * math.Pi)
	return dLat, dLng
}

func wgsToGCJ(lat, lng float64) (float64, float64) {
	dLat, dLng := gcjOffset(lat, lng)
	return lat + dLat, lng + dLng
}

// gcjToWGS inverts the transform by fixed-point iteration (it has no closed inverse);
// a few rounds bring the error far below a centimetre.
func gcjToWGS(lat, lng float64) (float64, float64) {
	wLat, wLng := lat, lng
	for range 8 {
		gLat, gLng := wgsToGCJ(wLat, wLng)
		eLat, eLng := gLat-lat, gLng-lng
		if math.Abs(eLat) < 1e-10 && math.Abs(eLng) < 1e-10 {
			break
		}
		wLat, wLng = wLat-eLat, wLng-eLng
	}
	return wLat, wLng
}

// distanceM is the great-circle distance in metres (both points in one datum).
func distanceM(a, b Point) int {
	const r = 6371008.8
	la1, la2 := a.Lat*math.Pi/180, b.Lat*math.Pi/180
	dLat, dLng := la2-la1, (b.Lng-a.Lng)*math.Pi/180
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(la1)*math.Cos(la2)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return int(math.Round(2 * r * math.Asin(math.Min(1, math.Sqrt(h)))))
}

var coordRE = regexp.MustCompile(`^\s*(-?\d{1,3}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$`)

// parseCoords reads "lat,lng" (WGS-84, as a model or a GPS gives them); ok is false for
// anything else, which is then an address.
func parseCoords(s string) (Point, bool) {
	m := coordRE.FindStringSubmatch(s)
	if m == nil {
		return Point{}, false
	}
	lat, err1 := strconv.ParseFloat(m[1], 64)
	lng, err2 := strconv.ParseFloat(m[2], 64)
	p := Point{Lat: lat, Lng: lng, Datum: WGS84}
	if err1 != nil || err2 != nil || !p.valid() {
		return Point{}, false
	}
	return p, true
}

// parseLngLat reads Amap's "lng,lat" in GCJ-02.
func parseLngLat(s string) (Point, bool) {
	m := coordRE.FindStringSubmatch(s)
	if m == nil {
		return Point{}, false
	}
	lng, err1 := strconv.ParseFloat(m[1], 64)
	lat, err2 := strconv.ParseFloat(m[2], 64)
	p := Point{Lat: lat, Lng: lng, Datum: GCJ02}
	if err1 != nil || err2 != nil || !p.valid() {
		return Point{}, false
	}
	return p, true
}

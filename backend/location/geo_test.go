package location

import (
	"math"
	"testing"
)

// TestGCJTransform holds the transform to published reference points: WGS-84 to GCJ-02
// pairs measured in Shanghai, Shenzhen and Beijing (the eviltransform project's test
// points) and a GCJ-02 to WGS-84 pair (gcoord's), within 1e-5° (about a metre).
func TestGCJTransform(t *testing.T) {
	pairs := []struct {
		name                       string
		wgsLat, wgsLng, gLat, gLng float64
	}{
		{"shanghai", 31.1774276, 121.5272106, 31.17530398364597, 121.531541859215},
		{"shenzhen", 22.543847, 113.912316, 22.540796131694766, 113.9171764808363},
		{"beijing", 39.911954, 116.377817, 39.91334545536069, 116.38404722455657},
	}
	const tol = 1e-5
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			g := Point{Lat: p.wgsLat, Lng: p.wgsLng, Datum: WGS84}.GCJ()
			if g.Datum != GCJ02 || math.Abs(g.Lat-p.gLat) > tol || math.Abs(g.Lng-p.gLng) > tol {
				t.Fatalf("wgs→gcj = %+v, want %v,%v", g, p.gLat, p.gLng)
			}
			w := Point{Lat: p.gLat, Lng: p.gLng, Datum: GCJ02}.WGS()
			if w.Datum != WGS84 || math.Abs(w.Lat-p.wgsLat) > tol || math.Abs(w.Lng-p.wgsLng) > tol {
				t.Fatalf("gcj→wgs = %+v, want %v,%v", w, p.wgsLat, p.wgsLng)
			}
		})
	}
	// gcoord: GCJ-02 (45, 123) is WGS-84 (44.99804071, 122.99395597).
	w := Point{Lat: 45, Lng: 123, Datum: GCJ02}.WGS()
	if math.Abs(w.Lat-44.99804071) > tol || math.Abs(w.Lng-122.99395597) > tol {
		t.Fatalf("gcoord point: %+v", w)
	}
	// The inverse is exact to far below a centimetre: forward after inverse is identity.
	back := w.GCJ()
	if math.Abs(back.Lat-45) > 1e-9 || math.Abs(back.Lng-123) > 1e-9 {
		t.Fatalf("round trip %+v", back)
	}
	// Outside China the datums agree; a WGS-84 point is not moved by WGS().
	if p := (Point{Lat: 48.8584, Lng: 2.2945, Datum: GCJ02}).WGS(); p.Lat != 48.8584 || p.Lng != 2.2945 {
		t.Fatalf("paris moved: %+v", p)
	}
	if p := (Point{Lat: 39.9, Lng: 116.4, Datum: WGS84}).WGS(); p.Lat != 39.9 {
		t.Fatalf("wgs moved: %+v", p)
	}
}

func TestParseCoords(t *testing.T) {
	cases := []struct {
		in       string
		ok       bool
		lat, lng float64
	}{
		{"39.9087,116.3975", true, 39.9087, 116.3975},
		{" -33.8568 , 151.2153 ", true, -33.8568, 151.2153},
		{"91,10", false, 0, 0},
		{"10,181", false, 0, 0},
		{"Beijing", false, 0, 0},
		{"39.9,116.4,5", false, 0, 0},
	}
	for _, c := range cases {
		p, ok := parseCoords(c.in)
		if ok != c.ok || (ok && (p.Lat != c.lat || p.Lng != c.lng || p.Datum != WGS84)) {
			t.Errorf("%q: %+v %v", c.in, p, ok)
		}
	}
	if p, ok := parseLngLat("116.480881,39.989410"); !ok || p.Lat != 39.989410 || p.Datum != GCJ02 {
		t.Errorf("amap order: %+v %v", p, ok)
	}
}

func TestDistance(t *testing.T) {
	// Tiananmen to the Forbidden City's north gate, about 1.9 km.
	d := distanceM(Point{Lat: 39.9087, Lng: 116.3975}, Point{Lat: 39.9254, Lng: 116.3972})
	if d < 1800 || d > 1950 {
		t.Fatalf("distance %d m", d)
	}
}

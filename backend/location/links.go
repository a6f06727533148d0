package location

import (
	"net/url"
	"strings"
)

// The map links Cairn builds. They are made here from coordinates (and, for Amap's
// marker, a name it escapes), never taken from an answer, so a hostile answer cannot put
// an address of its choice behind the card's links. Google's take WGS-84, Amap's GCJ-02.

func googlePlaceURL(p Point) string {
	return "https://www.google.com/maps/search/?" + url.Values{"api": {"1"}, "query": {p.WGS().latLng()}}.Encode()
}

func amapMarkerURL(p Point, name string) string {
	q := url.Values{"position": {p.GCJ().lngLat()}, "coordinate": {"gaode"}, "callnative": {"0"}}
	if name != "" {
		q.Set("name", name)
	}
	return "https://uri.amap.com/marker?" + q.Encode()
}

// googleDirURL is a route through points; Directions' mode names are the tool's.
func googleDirURL(points []Point, mode string) string {
	if len(points) < 2 {
		return ""
	}
	q := url.Values{"api": {"1"}, "travelmode": {mode},
		"origin": {points[0].WGS().latLng()}, "destination": {points[len(points)-1].WGS().latLng()}}
	if len(points) > 2 {
		via := make([]string, 0, len(points)-2)
		for _, p := range points[1 : len(points)-1] {
			via = append(via, p.WGS().latLng())
		}
		q.Set("waypoints", strings.Join(via, "|"))
	}
	return "https://www.google.com/maps/dir/?" + q.Encode()
}

// amapModes are uri.amap.com's names for the tool's modes.
var amapModes = map[string]string{"driving": "car", "walking": "walk", "transit": "bus", "bicycling": "ride"}

// amapNavURL opens Amap's navigation between two places (its link takes no list of
// waypoints, so a trip through several gets the Google link only).
func amapNavURL(from, to Place, mode string) string {
	q := url.Values{"from": {from.GCJ().lngLat() + "," + from.Name}, "to": {to.GCJ().lngLat() + "," + to.Name},
		"mode": {amapModes[mode]}, "coordinate": {"gaode"}, "callnative": {"0"}}
	return "https://uri.amap.com/navigation?" + q.Encode()
}

package location

// provider is a map service.
type provider string

// The services: Amap (高德) for mainland China, Google Maps elsewhere.
const (
	Amap   provider = "amap"
	Google provider = "google"
)

func (p provider) display() string {
	if p == Amap {
		return "Amap"
	}
	return "Google Maps"
}

func (p provider) secret() string {
	if p == Amap {
		return SecretAmap
	}
	return SecretGoogle
}

func (p provider) endpointSetting() string { return EndpointSetting(p) }

// Place is one place a service named: a search hit, a geocoded address, where the
// caller is. Its point says its datum.
type Place struct {
	Name    string `json:"name"`
	Address string `json:"address,omitempty"`
	Point
	// DistanceM is from the search's centre, when there is one.
	DistanceM *int   `json:"distanceM,omitempty"`
	Type      string `json:"type,omitempty"`
	// City is Amap's city code, which its transit planning needs.
	City string `json:"-"`
	// Level is how precise a geocode is (Amap's 市, 区县, 门牌号 …; Google's types).
	Level string `json:"level,omitempty"`
	// MapURL opens the place in Google Maps (WGS-84), AmapURL in Amap (GCJ-02); both are
	// built by Cairn from the coordinates, never taken from an answer.
	MapURL  string `json:"mapUrl"`
	AmapURL string `json:"amapUrl,omitempty"`
}

// Step is one instruction of a route.
type Step struct {
	Text      string `json:"text"`
	DistanceM int    `json:"distanceM,omitempty"`
	DurationS int    `json:"durationS,omitempty"`
	// A transit ride: the line, where to board and leave, how many stops.
	Line  string `json:"line,omitempty"`
	From  string `json:"from,omitempty"`
	To    string `json:"to,omitempty"`
	Stops int    `json:"stops,omitempty"`
}

// Leg is the route between two consecutive points of a trip.
type Leg struct {
	From      string `json:"from"`
	To        string `json:"to"`
	DistanceM int    `json:"distanceM"`
	DurationS int    `json:"durationS"`
	Steps     []Step `json:"steps"`
	// StepsLeftOut is how many steps past the cap were not kept.
	StepsLeftOut int `json:"stepsLeftOut,omitempty"`
}

// Route is a way from the first point through the waypoints to the last.
type Route struct {
	Mode      string  `json:"mode"`
	DistanceM int     `json:"distanceM"`
	DurationS int     `json:"durationS"`
	Points    []Place `json:"points"`
	Legs      []Leg   `json:"legs"`
	MapURL    string  `json:"mapUrl"`
	AmapURL   string  `json:"amapUrl,omitempty"`
}

// Display is what a call found, for the tool card (and, formatted, for the model).
type Display struct {
	Action       string `json:"action"`
	Provider     string `json:"provider"`
	ProviderName string `json:"providerName"`
	// Datum is the datum of every coordinate in this answer.
	Datum  Datum   `json:"datum"`
	Query  string  `json:"query,omitempty"`
	Center *Place  `json:"center,omitempty"`
	Places []Place `json:"places,omitempty"`
	Route  *Route  `json:"route,omitempty"`
	// AccuracyM is how far off a located position may be.
	AccuracyM int `json:"accuracyM,omitempty"`
	// Note says what went partly wrong (an address lookup after a locate).
	Note string `json:"note,omitempty"`
}

func newDisplay(action string, p provider) Display {
	d := Display{Action: action, Provider: string(p), ProviderName: p.display(), Datum: WGS84}
	if p == Amap {
		d.Datum = GCJ02
	}
	return d
}

// The caps on a result.
const (
	maxSteps     = 120
	maxWaypoints = 8
	maxGeocodes  = 10
)

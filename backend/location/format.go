package location

import (
	"fmt"
	"strings"
)

// Format is the text the model reads: who answered and in which datum, then the places
// or the route, with the map links Cairn built.
func Format(d Display) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s answered (%s).", d.ProviderName, datumNote(d.Datum))
	b.WriteString(" Names and addresses come from the map service.\n")
	if d.Note != "" {
		fmt.Fprintf(&b, "%s\n", d.Note)
	}
	if d.Center != nil {
		fmt.Fprintf(&b, "Centre: %s (%s)\n", d.Center.Name, coords(d.Center.Point))
	}
	switch {
	case d.Route != nil:
		formatRoute(&b, *d.Route)
	case len(d.Places) == 0:
		fmt.Fprintf(&b, "Nothing was found%s.\n", forQuery(d.Query))
	default:
		formatPlaces(&b, d)
	}
	return b.String()
}

func datumNote(d Datum) string {
	if d == GCJ02 {
		return "coordinates are GCJ-02, the datum of Chinese maps; the Google Maps links are converted to WGS-84"
	}
	return "coordinates are WGS-84"
}

func forQuery(q string) string {
	if q == "" {
		return ""
	}
	return fmt.Sprintf(" for %q", q)
}

func coords(p Point) string { return p.latLng() }

func formatPlaces(b *strings.Builder, d Display) {
	switch d.Action {
	case "locate":
		fmt.Fprintf(b, "The user is about here (by IP address")
		if d.AccuracyM > 0 {
			fmt.Fprintf(b, ", within about %s", meters(d.AccuracyM))
		}
		b.WriteString("):\n")
	default:
		fmt.Fprintf(b, "%d place(s)%s:\n", len(d.Places), forQuery(d.Query))
	}
	for i, p := range d.Places {
		fmt.Fprintf(b, "%d. %s", i+1, p.Name)
		if p.Address != "" {
			fmt.Fprintf(b, " — %s", p.Address)
		}
		if p.DistanceM != nil {
			fmt.Fprintf(b, " — %s away", meters(*p.DistanceM))
		}
		fmt.Fprintf(b, " — %s", coords(p.Point))
		if p.Type != "" {
			fmt.Fprintf(b, " — %s", p.Type)
		}
		fmt.Fprintf(b, "\n   Map: %s\n", p.MapURL)
	}
}

func formatRoute(b *strings.Builder, r Route) {
	fmt.Fprintf(b, "%s route: %s, %s", titleMode(r.Mode), meters(r.DistanceM), duration(r.DurationS))
	if len(r.Legs) > 1 {
		fmt.Fprintf(b, " in %d legs", len(r.Legs))
	}
	b.WriteString(".\n")
	for i, l := range r.Legs {
		fmt.Fprintf(b, "\nLeg %d: %s → %s (%s, %s)\n", i+1, l.From, l.To, meters(l.DistanceM), duration(l.DurationS))
		for j, s := range l.Steps {
			fmt.Fprintf(b, "  %d. %s", j+1, s.Text)
			if s.Stops > 0 {
				fmt.Fprintf(b, " (%d stops)", s.Stops)
			}
			if s.DistanceM > 0 {
				fmt.Fprintf(b, " (%s)", meters(s.DistanceM))
			}
			b.WriteByte('\n')
		}
		if l.StepsLeftOut > 0 {
			fmt.Fprintf(b, "  … %d more steps left out\n", l.StepsLeftOut)
		}
	}
	fmt.Fprintf(b, "\nMap: %s\n", r.MapURL)
	if r.AmapURL != "" {
		fmt.Fprintf(b, "Amap: %s\n", r.AmapURL)
	}
}

func titleMode(m string) string {
	if m == "" {
		return ""
	}
	return strings.ToUpper(m[:1]) + m[1:]
}

func meters(m int) string {
	if m >= 1000 {
		return fmt.Sprintf("%.1f km", float64(m)/1000)
	}
	return fmt.Sprintf("%d m", m)
}

func duration(s int) string {
	h, m := s/3600, (s%3600+30)/60
	if m == 60 {
		h, m = h+1, 0
	}
	if h > 0 {
		return fmt.Sprintf("%d h %d min", h, m)
	}
	return fmt.Sprintf("%d min", max(m, 1))
}

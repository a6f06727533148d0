package location

import (
	"context"
	"fmt"
	"net/url"
)

type amapStep struct {
	Instruction  flexStr `json:"instruction"`
	Distance     flexStr `json:"distance"`
	StepDistance flexStr `json:"step_distance"` // v5's name for it
	Duration     flexStr `json:"duration"`
	Cost         flexObj[struct {
		Duration flexStr `json:"duration"`
	}] `json:"cost"` // v5 puts a step's time here
}

type amapPath struct {
	Distance flexStr    `json:"distance"`
	Duration flexStr    `json:"duration"`
	Steps    []amapStep `json:"steps"`
	Cost     flexObj[struct {
		Duration flexStr `json:"duration"`
	}] `json:"cost"`
}

type amapStop struct {
	Name flexStr `json:"name"`
}

// amapLine is a bus, metro or train line a transit segment rides.
type amapLine struct {
	Name          flexStr           `json:"name"`
	DepartureStop flexObj[amapStop] `json:"departure_stop"`
	ArrivalStop   flexObj[amapStop] `json:"arrival_stop"`
	Distance      flexStr           `json:"distance"`
	Duration      flexStr           `json:"duration"`
	Time          flexStr           `json:"time"` // a railway's
	ViaNum        flexStr           `json:"via_num"`
}

type amapSegment struct {
	Walking flexObj[struct {
		Distance flexStr    `json:"distance"`
		Duration flexStr    `json:"duration"`
		Steps    []amapStep `json:"steps"`
	}] `json:"walking"`
	Bus flexObj[struct {
		Buslines []amapLine `json:"buslines"`
	}] `json:"bus"`
	Railway flexObj[amapLine] `json:"railway"`
}

type amapRoute struct {
	amapStatus
	Route flexObj[struct {
		Paths    []amapPath `json:"paths"`
		Transits []struct {
			Distance flexStr       `json:"distance"`
			Duration flexStr       `json:"duration"`
			Segments []amapSegment `json:"segments"`
		} `json:"transits"`
	}] `json:"route"`
}

// amapRoutePaths are the documented route APIs per mode: v3 driving, walking and
// integrated transit, v5 bicycling (v3 has none with the common status fields).
var amapRoutePaths = map[string]string{
	"driving":   "/v3/direction/driving",
	"walking":   "/v3/direction/walking",
	"transit":   "/v3/direction/transit/integrated",
	"bicycling": "/v5/direction/bicycling",
}

// leg is the route between two resolved places (GCJ-02). Transit needs both cities.
func (c amapClient) leg(ctx context.Context, from, to Place, mode string) (Leg, error) {
	q := url.Values{"origin": {from.lngLat()}, "destination": {to.lngLat()}}
	switch mode {
	case "transit":
		q.Set("city", from.City)
		q.Set("cityd", to.City)
	case "bicycling":
		q.Set("show_fields", "cost")
	}
	var r amapRoute
	what := fmt.Sprintf("a %s route from %s to %s", mode, from.Name, to.Name)
	if err := c.get(ctx, amapRoutePaths[mode], q, what, &r); err != nil {
		return Leg{}, err
	}
	leg := Leg{From: from.Name, To: to.Name}
	if mode == "transit" {
		if len(r.Route.V.Transits) == 0 {
			return Leg{}, errNotFound(Amap, what)
		}
		t := r.Route.V.Transits[0]
		leg.DistanceM, leg.DurationS = t.Distance.num(), t.Duration.num()
		for _, s := range t.Segments {
			leg.Steps = append(leg.Steps, transitSteps(s)...)
		}
		return capSteps(leg), nil
	}
	if len(r.Route.V.Paths) == 0 {
		return Leg{}, errNotFound(Amap, what)
	}
	p := r.Route.V.Paths[0]
	leg.DistanceM, leg.DurationS = p.Distance.num(), p.Duration.num()
	if leg.DurationS == 0 {
		leg.DurationS = p.Cost.V.Duration.num()
	}
	for _, s := range p.Steps {
		leg.Steps = append(leg.Steps, amapStepOf(s))
	}
	return capSteps(leg), nil
}

func amapStepOf(s amapStep) Step {
	st := Step{Text: clean(string(s.Instruction), maxInstruction), DistanceM: s.Distance.num(), DurationS: s.Duration.num()}
	if st.DistanceM == 0 {
		st.DistanceM = s.StepDistance.num()
	}
	if st.DurationS == 0 {
		st.DurationS = s.Cost.V.Duration.num()
	}
	return st
}

// transitSteps are a segment's walk (its own steps) and its ride (the first of the
// alternative lines Amap lists, or the train).
func transitSteps(s amapSegment) []Step {
	var out []Step
	for _, w := range s.Walking.V.Steps {
		out = append(out, amapStepOf(w))
	}
	ride := func(l amapLine) {
		if l.Name == "" {
			return
		}
		dur := l.Duration.num()
		if dur == 0 {
			dur = l.Time.num()
		}
		st := Step{Line: clean(string(l.Name), maxName), From: clean(string(l.DepartureStop.V.Name), maxName),
			To: clean(string(l.ArrivalStop.V.Name), maxName), Stops: l.ViaNum.num() + 1, DistanceM: l.Distance.num(), DurationS: dur}
		st.Text = fmt.Sprintf("Take %s from %s to %s", st.Line, st.From, st.To)
		out = append(out, st)
	}
	if lines := s.Bus.V.Buslines; len(lines) > 0 {
		ride(lines[0])
	}
	ride(s.Railway.V)
	return out
}

// capSteps keeps a leg's first maxSteps steps and counts the rest.
func capSteps(l Leg) Leg {
	if len(l.Steps) > maxSteps {
		l.StepsLeftOut = len(l.Steps) - maxSteps
		l.Steps = l.Steps[:maxSteps]
	}
	if l.Steps == nil {
		l.Steps = []Step{}
	}
	return l
}

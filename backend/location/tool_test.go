package location

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/tools"
)

func mustRequest(t *testing.T, in Input) Request {
	t.Helper()
	r, err := in.Request()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRequest: defaults, region detection and forcing, and the arguments an action
// cannot do without, refused before anything is sent.
func TestRequest(t *testing.T) {
	cases := []struct {
		in      Input
		region  Region
		problem string
	}{
		{Input{Action: "locate"}, "", ""},
		{Input{Action: "geocode", Location: "天安门"}, RegionCN, ""},
		{Input{Action: "geocode", Location: "Big Ben"}, RegionGlobal, ""},
		{Input{Action: "geocode", Location: "Big Ben", Region: "cn"}, RegionCN, ""},
		{Input{Action: "search_places", Query: "咖啡", Location: "Paris", Region: "global"}, RegionGlobal, ""},
		{Input{Action: "get_directions", Location: "Louvre", Destination: "Beijing"}, RegionCN, ""},
		{Input{Action: "plan_trip", Location: "a", Destination: "b", Waypoints: []string{"成都"}}, RegionCN, ""},
		{Input{Action: "fly"}, "", "action"},
		{Input{Action: "geocode"}, "", "geocode needs location"},
		{Input{Action: "search_places", Location: "Paris"}, "", "needs query or type"},
		{Input{Action: "get_directions", Location: "a"}, "", "needs location (the start) and destination"},
		{Input{Action: "plan_trip", Location: "a", Destination: "b"}, "", "plan_trip needs waypoints"},
		{Input{Action: "get_directions", Location: "a", Destination: "b", Mode: "teleport"}, "", "mode"},
		{Input{Action: "locate", Region: "mars"}, "", "region"},
		{Input{Action: "search_places", Query: "x", Radius: 60000}, "", "radius"},
		{Input{Action: "search_places", Query: "x", Limit: 61}, "", "limit"},
		{Input{Action: "search_places", Query: "x", Type: "a&b=c"}, "", "type"},
		{Input{Action: "search_places", Query: "x", Language: "en&key=x"}, "", "language"},
		{Input{Action: "plan_trip", Location: "a", Destination: "b", Waypoints: strings.Split("1 2 3 4 5 6 7 8 9", " ")}, "", "waypoints"},
		{Input{Action: "plan_trip", Location: "a", Destination: "b", Waypoints: []string{" "}}, "", "waypoint"},
		{Input{Action: "geocode", Location: strings.Repeat("x", 301)}, "", "longer than 300"},
	}
	for _, c := range cases {
		r, err := c.in.Request()
		if c.problem != "" {
			if !apperr.Is(err, apperr.InvalidArgument) || !strings.Contains(err.Error(), c.problem) {
				t.Errorf("%+v: %v, want %q", c.in, err, c.problem)
			}
			continue
		}
		if err != nil || r.Region != c.region {
			t.Errorf("%+v: %+v %v", c.in, r, err)
		}
	}
	r := mustRequest(t, Input{Action: "search_places", Query: "x"})
	if r.Radius != 5000 || r.Limit != 20 || r.Mode != "driving" {
		t.Fatalf("defaults %+v", r)
	}
}

// TestToolEntry: a typed, read-only tool in the location namespace, on only where the
// toolset is, with a generated schema carrying the bounds.
func TestToolEntry(t *testing.T) {
	e := Tool(NewService(Deps{}))
	if e.Name != "location_query" || !e.ReadOnly || !e.Cancellable || !e.Typed() {
		t.Fatalf("entry %+v", e)
	}
	c := Capability()
	if err := (capability.List{c}).Check(); err != nil {
		t.Fatal(err)
	}
	entries, err := c.ToolEntries([]tools.Entry{e})
	if err != nil || entries[0].Applies(tools.Scope{}) || !entries[0].Applies(tools.Scope{Toolsets: []string{"location"}}) {
		t.Fatalf("%v %+v", err, entries)
	}
	for _, want := range []string{`"required":["action"]`, `"enum":["locate","geocode","search_places","get_directions","plan_trip"]`,
		`"enum":["driving","walking","transit","bicycling"]`, `"enum":["cn","global"]`, `"maximum":50000`, `"maxItems":8`, `"additionalProperties":false`} {
		if !strings.Contains(string(e.InputSchema), want) {
			t.Errorf("schema %s lacks %s", e.InputSchema, want)
		}
	}
}

// TestMissingKey: without the key the tool fails with an error the window shows with
// its Settings → Location action and the model reads as a sentence saying what to do.
func TestMissingKey(t *testing.T) {
	e := Tool(NewService(Deps{Secrets: fakeSecrets{}, Settings: fakeSettings{}}))
	for _, c := range []struct {
		args, provider, secret string
	}{
		{`{"action":"search_places","query":"火锅","location":"成都"}`, "Amap", SecretAmap},
		{`{"action":"geocode","location":"Big Ben"}`, "Google Maps", SecretGoogle},
		{`{"action":"locate"}`, "Amap / Google Maps", SecretAmap + ", " + SecretGoogle},
	} {
		_, err := e.Execute(context.Background(), json.RawMessage(c.args), func(tools.Progress) {})
		ae := apperr.From(err)
		if ae.Code != apperr.LocationKeyRequired || ae.I18nKey != "errors.location_key_required" {
			t.Fatalf("%s: %s", c.args, ae.Code)
		}
		if ae.Action == nil || ae.Action.Kind != "open-settings" || ae.Action.Target != "location" {
			t.Fatalf("action %+v", ae.Action)
		}
		if ae.Params["provider"] != c.provider || ae.Params["secret"] != c.secret || !strings.Contains(ae.Message, "Settings → Location") {
			t.Fatalf("%s: %v %s", c.args, ae.Params, ae.Message)
		}
	}
	// Through the pipeline the model reads it as the tool's error.
	reg := tools.NewRegistry()
	entries, _ := Capability().ToolEntries([]tools.Entry{e})
	if err := reg.Register(entries...); err != nil {
		t.Fatal(err)
	}
	out := tools.NewPipeline(reg, tools.Options{}).RunBatch(context.Background(), []tools.Call{{ID: "c1", Name: "location_query",
		Arguments: `{"action":"geocode","location":"Big Ben"}`, SessionID: "s", Scope: tools.Scope{Toolsets: []string{"location"}}}}, nil)
	if len(out) != 1 || out[0].Status != tools.StatusError || !strings.Contains(out[0].Content, "Google Maps: no API key is set") {
		t.Fatalf("%+v", out)
	}
}

// TestEndpointSetting: an endpoint that is not http(s) is refused when set and when read.
func TestEndpointSetting(t *testing.T) {
	for _, sp := range Specs() {
		if sp.Check == nil {
			continue
		}
		if sp.Check("https://proxy.example/amap") != nil || sp.Check("") != nil || sp.Check("file:///etc/passwd") == nil || sp.Check("javascript:x") == nil {
			t.Fatalf("%s check", sp.Key)
		}
	}
	svc := NewService(Deps{Secrets: bothKeys, Settings: fakeSettings{EndpointSetting(Amap): "ftp://x"}})
	_, err := svc.Query(t.Context(), mustRequest(t, Input{Action: "geocode", Location: "天安门"}))
	if ae := apperr.From(err); ae.Code != apperr.LocationEndpointInvalid || ae.Action == nil || ae.Action.Target != "location" {
		t.Fatalf("%s %+v", ae.Code, ae.Action)
	}
}

// TestToolRuns: the card gets the answer as JSON, the model the formatted text.
func TestToolRuns(t *testing.T) {
	amap := newFakeMaps(t, map[string]func(url.Values) (int, any){
		"/v3/geocode/geo": amapGeo("北京市东城区天安门", "116.397455,39.909187", "兴趣点", "010"),
	})
	e := Tool(testService(amap, nil, bothKeys))
	var progress []string
	res, err := e.Execute(t.Context(), json.RawMessage(`{"action":"geocode","location":"天安门"}`), func(p tools.Progress) { progress = append(progress, p.Message) })
	if err != nil {
		t.Fatal(err)
	}
	var d Display
	if err := json.Unmarshal(res.Display, &d); err != nil || d.Action != "geocode" || d.ProviderName != "Amap" || len(d.Places) != 1 {
		t.Fatalf("%v %s", err, res.Display)
	}
	if !strings.Contains(string(res.Display), `"datum":"gcj02"`) || !strings.Contains(res.Content, "1. 北京市东城区天安门 — 39.909187,116.397455") {
		t.Fatalf("display %s\ncontent %s", res.Display, res.Content)
	}
	if len(progress) != 1 || progress[0] != "geocode: 天安门" {
		t.Fatalf("progress %q", progress)
	}
}

package location

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

type fakeSettings map[string]string

func (f fakeSettings) String(_ context.Context, k string) string { return f[k] }
func (f fakeSettings) Duration(context.Context, string) time.Duration {
	return 0
}

type fakeSecrets map[string]string

func (f fakeSecrets) Get(n string) (string, bool, error) {
	v, ok := f[n]
	return v, ok, nil
}

// fakeMaps is a local stand-in for a map service: each path answers with its handler's
// value (JSON-encoded unless it is a string) and every request is kept.
type fakeMaps struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	bodies   []string
}

func newFakeMaps(t *testing.T, routes map[string]func(q url.Values) (int, any)) *fakeMaps {
	t.Helper()
	f := &fakeMaps{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body [4096]byte
		n, _ := r.Body.Read(body[:])
		f.mu.Lock()
		f.requests = append(f.requests, r)
		f.bodies = append(f.bodies, string(body[:n]))
		f.mu.Unlock()
		h, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		st, v := h(r.URL.Query())
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st)
		if s, ok := v.(string); ok {
			_, _ = w.Write([]byte(s))
			return
		}
		_ = json.NewEncoder(w).Encode(v)
	}))
	t.Cleanup(f.Close)
	return f
}

// paths are the request paths in order, and queries their queries.
func (f *fakeMaps) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.requests))
	for i, r := range f.requests {
		out[i] = r.URL.Path
	}
	return out
}

func (f *fakeMaps) query(i int) url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i].URL.Query()
}

// testService points both services at local servers (either may be nil) with keys.
func testService(amap, google *fakeMaps, keys fakeSecrets) *Service {
	st := fakeSettings{}
	if amap != nil {
		st[EndpointSetting(Amap)] = amap.URL
	}
	if google != nil {
		st[EndpointSetting(Google)] = google.URL
		st[SettingGeolocation] = google.URL
	}
	return NewService(Deps{Settings: st, Secrets: keys, PageDelay: time.Millisecond})
}

func ok(v any) func(url.Values) (int, any) {
	return func(url.Values) (int, any) { return 200, v }
}

var bothKeys = fakeSecrets{SecretAmap: "amap-key", SecretGoogle: "google-key"}

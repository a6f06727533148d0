package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/cairn-app/cairn/backend/server"
)

// TestDebugStats: the route exists only when the server was made with DebugStats, needs
// the token like every route, and reports the runtime's figures and the bus's lost
// deliveries.
func TestDebugStats(t *testing.T) {
	off := newTestServer(t, nil)
	if r := off.do(t, http.MethodGet, "/api/debug/stats", nil, bearer(testToken)); r.status != http.StatusNotFound {
		t.Fatalf("without DebugStats: %d %s, want 404", r.status, r.body)
	}

	on := newTestServer(t, func(c *server.Config) { c.DebugStats = true })
	slow := on.bus.Subscribe(1)
	defer slow.Close()
	for i := 0; i < 3; i++ {
		on.bus.Publish("t", "x", i)
	}
	tests := []struct {
		name   string
		method string
		path   string
		opts   []reqOpt
		status int
	}{
		{"no token", http.MethodGet, "/api/debug/stats", nil, http.StatusUnauthorized},
		{"POST", http.MethodPost, "/api/debug/stats", []reqOpt{bearer(testToken)}, http.StatusMethodNotAllowed},
		{"as it is", http.MethodGet, "/api/debug/stats", []reqOpt{bearer(testToken)}, http.StatusOK},
		{"after a collection", http.MethodGet, "/api/debug/stats?gc=1", []reqOpt{bearer(testToken)}, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := on.do(t, tc.method, tc.path, nil, tc.opts...)
			if r.status != tc.status {
				t.Fatalf("%d %s, want %d", r.status, r.body, tc.status)
			}
			if r.status != http.StatusOK {
				return
			}
			var st server.DebugStats
			if err := json.Unmarshal(r.body, &st); err != nil {
				t.Fatal(err)
			}
			if st.Goroutines <= 0 || st.HeapInuse == 0 || st.HeapAlloc == 0 || st.Sys < st.HeapSys {
				t.Fatalf("runtime figures missing: %+v", st)
			}
			if st.Collected != (tc.path == "/api/debug/stats?gc=1") {
				t.Fatalf("collected %v for %s", st.Collected, tc.path)
			}
			if st.EventsDropped != 2 || st.EventSubscribers != 1 || st.EventTopics != 1 || st.EventStreams != 0 {
				t.Fatalf("events: dropped %d, subscribers %d, topics %d, streams %d; want 2, 1, 1, 0",
					st.EventsDropped, st.EventSubscribers, st.EventTopics, st.EventStreams)
			}
		})
	}
}

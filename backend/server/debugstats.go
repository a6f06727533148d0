package server

import (
	"encoding/json"
	"net/http"
	"runtime"

	"github.com/cairn-app/cairn/backend/apperr"
)

// debugStatsPath answers the process's own memory and goroutine figures when
// Config.DebugStats is set; otherwise it is an unknown route like any other.
const debugStatsPath = "/api/debug/stats"

// DebugStats is the answer of GET /api/debug/stats: what a soak run (bench/soak.sh)
// samples beside the process's PSS to tell a leak in Go's heap or in goroutines from the
// runtime keeping memory it freed. With ?gc=1 the figures are read after a collection,
// so the heap ones are the live heap rather than wherever the last cycle left it.
type DebugStats struct {
	Goroutines   int    `json:"goroutines"`
	HeapInuse    uint64 `json:"heapInuse"`    // bytes in in-use spans
	HeapAlloc    uint64 `json:"heapAlloc"`    // bytes of allocated objects
	HeapSys      uint64 `json:"heapSys"`      // heap obtained from the OS
	HeapReleased uint64 `json:"heapReleased"` // heap returned to the OS
	HeapObjects  uint64 `json:"heapObjects"`
	StackInuse   uint64 `json:"stackInuse"`
	Sys          uint64 `json:"sys"` // everything the runtime obtained from the OS
	NumGC        uint32 `json:"numGC"`
	Collected    bool   `json:"collected"` // a collection ran first (?gc=1)
	// EventsDropped counts deliveries the bus lost to a full subscriber buffer since it
	// was made; EventSubscribers its open subscriptions; EventTopics the topics it keeps a
	// seq for; EventStreams this server's open event streams (windows and terminals).
	EventsDropped    uint64 `json:"eventsDropped"`
	EventSubscribers int    `json:"eventSubscribers"`
	EventTopics      int    `json:"eventTopics"`
	EventStreams     int    `json:"eventStreams"`
}

// serveDebugStats answers debugStatsPath; route has checked the token already.
func (s *Server) serveDebugStats(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.DebugStats {
		s.writeError(w, r, apperr.New(apperr.MethodUnknown, "no API route %q", r.URL.Path).WithParam("method", "debug/stats"))
		return
	}
	if !allowMethods(w, r, http.MethodGet) {
		return
	}
	st := DebugStats{Collected: r.URL.Query().Get("gc") == "1"}
	if st.Collected {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	st.Goroutines = runtime.NumGoroutine()
	st.HeapInuse, st.HeapAlloc, st.HeapSys = m.HeapInuse, m.HeapAlloc, m.HeapSys
	st.HeapReleased, st.HeapObjects, st.StackInuse = m.HeapReleased, m.HeapObjects, m.StackInuse
	st.Sys, st.NumGC = m.Sys, m.NumGC
	if s.cfg.Bus != nil {
		st.EventsDropped, st.EventSubscribers, st.EventTopics = s.cfg.Bus.Drops(), s.cfg.Bus.Subscribers(), s.cfg.Bus.Topics()
	}
	st.EventStreams = s.EventStreams()
	b, err := json.Marshal(st)
	if err != nil {
		s.writeError(w, r, apperr.Wrap(err, apperr.Internal, "encode debug stats"))
		return
	}
	writeJSONBytes(w, http.StatusOK, b)
}

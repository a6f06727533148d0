package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

// TypeHello is the first event of every stream: the client is connected and subscribed,
// so it can load its snapshots now and apply every later event with a higher seq.
const TypeHello = "hello"

// eventWriteTimeout bounds one write to a stream, so a client that stopped reading is
// dropped instead of holding its goroutine forever.
const eventWriteTimeout = 30 * time.Second

// serveEvents streams the bus as Server-Sent Events: `data: <events.Event JSON>\n\n`.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.done:
		w.Header().Set("Retry-After", "1")
		writeJSONError(w, http.StatusServiceUnavailable, apperr.New(apperr.Internal, "server shutting down"))
		return
	default:
	}
	s.streams.Add(1)
	defer s.streams.Add(-1)
	var (
		c       <-chan events.Event // nil without a bus: only hello and heartbeats
		dropped = func() bool { return false }
	)
	if s.cfg.Bus != nil {
		sub := s.cfg.Bus.Subscribe(s.cfg.EventBuffer)
		defer sub.Close()
		c, dropped = sub.C, sub.Dropped
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	send := func(chunk []byte) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := w.Write(chunk); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	sendEvent := func(ev events.Event) bool {
		b, err := json.Marshal(ev)
		if err != nil {
			s.log.Warn("serve: event not encodable", "topic", ev.Topic, "type", ev.Type, "err", err)
			return true
		}
		chunk := make([]byte, 0, len(b)+8)
		chunk = append(chunk, "data: "...)
		chunk = append(chunk, b...)
		chunk = append(chunk, "\n\n"...)
		return send(chunk)
	}
	control := func(typ string) events.Event {
		return events.Event{Type: typ, Time: time.Now().UnixMilli()}
	}

	// retry: how long EventSource waits before reconnecting after the stream ends.
	if !send([]byte("retry: 2000\n\n")) || !sendEvent(control(TypeHello)) {
		return
	}
	tick := time.NewTicker(s.cfg.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case ev, ok := <-c:
			if !ok {
				return // the bus closed
			}
			if !sendEvent(ev) {
				return
			}
			if dropped() && !sendEvent(control(events.TypeResync)) {
				return
			}
		case <-tick.C:
			if dropped() {
				if !sendEvent(control(events.TypeResync)) {
					return
				}
				continue
			}
			if !send([]byte(": heartbeat\n\n")) {
				return
			}
		}
	}
}

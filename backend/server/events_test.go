package server_test

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/server"
)

func assertHello(t *testing.T, ev events.Event) {
	t.Helper()
	if ev.Type != server.TypeHello || ev.Topic != "" || ev.Seq != 0 {
		t.Fatalf("first event %+v, want hello with empty topic and seq 0", ev)
	}
}

func TestEventsReachEveryClientInOrder(t *testing.T) {
	ts := newTestServer(t, nil)
	a := openEvents(t, ts.ts.URL, nil)
	b := openEvents(t, ts.ts.URL, nil)
	// hello comes after the subscription: once read, nothing published later is missed.
	assertHello(t, a.next())
	assertHello(t, b.next())

	var published []events.Event
	for i := range 6 {
		topic := events.TopicSettings
		if i%2 == 1 {
			topic = events.SessionTopic("s1")
		}
		published = append(published, ts.bus.Publish(topic, events.TypeSettingsChanged, map[string]int{"i": i}))
	}
	for name, s := range map[string]*sseStream{"a": a, "b": b} {
		for i, want := range published {
			got := s.next()
			if got.Topic != want.Topic || got.Seq != want.Seq || got.Type != want.Type || got.Time != want.Time {
				t.Fatalf("client %s event %d = %+v, want %+v", name, i, got, want)
			}
			if !jsonEqual(t, got.Data, string(want.Data)) {
				t.Fatalf("client %s event %d data %s, want %s", name, i, got.Data, want.Data)
			}
		}
	}
	// Per-topic seq: settings 1,2,3 and session:s1 1,2,3.
	if published[4].Seq != 3 || published[5].Seq != 3 {
		t.Fatalf("seqs %d %d", published[4].Seq, published[5].Seq)
	}
}

// smallBuffers makes a slow client block the server after a few kilobytes, so the bus
// has to drop events for that stream. It hands out each accepted connection so the test
// can widen the buffer again once the drop happened (a tiny buffer makes the rest slow).
type smallBuffers struct {
	net.Listener
	accepted chan *net.TCPConn
}

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(1024)
		select {
		case l.accepted <- tc:
		default:
		}
	}
	return c, nil
}

func TestEventsResyncWhenAClientFallsBehind(t *testing.T) {
	bus := events.NewBus()
	srv, err := server.New(server.Config{Token: testToken, Bus: bus, EventBuffer: 2})
	if err != nil {
		t.Fatal(err)
	}
	hts := httptest.NewUnstartedServer(srv.Handler())
	serverConns := make(chan *net.TCPConn, 1)
	hts.Listener = smallBuffers{Listener: hts.Listener, accepted: serverConns}
	hts.Start()
	t.Cleanup(hts.Close)
	t.Cleanup(func() { shutdown(t, srv) })

	slow := openEvents(t, hts.URL, nil)
	assertHello(t, slow.next())

	// The client reads nothing while 64 events of 64 KiB are published: far more than the
	// server's shrunk send buffer, the client's receive window (it only grows when the
	// client reads; 128 KiB by default on Linux) and the 2-event subscription buffer hold.
	payload := strings.Repeat("x", 64<<10)
	const n = 64
	for range n {
		bus.Publish(events.TopicSessions, "sessions:changed", payload)
	}
	// The drop has happened; let the backlog flow at loopback speed.
	_ = (<-serverConns).SetWriteBuffer(4 << 20)

	var got []uint64
	for resync := false; !resync; {
		ev := slow.next()
		if ev.Type == events.TypeResync {
			if ev.Topic != "" || ev.Seq != 0 {
				t.Fatalf("resync event %+v", ev)
			}
			resync = true
			continue
		}
		got = append(got, ev.Seq)
	}
	if len(got) >= n {
		t.Fatalf("received %d events before the resync, expected drops", len(got))
	}
	// The stream goes on after the resync: a new event still arrives, in order. While the
	// backlog drains the new event may itself be dropped (another resync): publish again.
	for delivered := false; !delivered; {
		after := bus.Publish(events.TopicSessions, "sessions:changed", "after")
		for {
			ev := slow.next()
			if ev.Type == events.TypeResync {
				break
			}
			got = append(got, ev.Seq)
			if ev.Seq == after.Seq {
				delivered = true
				break
			}
		}
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("seq went back: %v", got)
		}
	}
}

func TestEventsHeartbeat(t *testing.T) {
	ts := newTestServer(t, func(c *server.Config) { c.Heartbeat = 20 * time.Millisecond })
	s := openEvents(t, ts.ts.URL, nil)
	assertHello(t, s.next())
	for {
		f, err := s.nextFrame()
		if err != nil {
			t.Fatalf("stream ended before a heartbeat: %v", err)
		}
		if f.comment == "heartbeat" {
			return
		}
	}
}

func TestEventsEndWhenBusCloses(t *testing.T) {
	ts := newTestServer(t, nil)
	s := openEvents(t, ts.ts.URL, nil)
	assertHello(t, s.next())
	ts.bus.Close()
	for {
		_, err := s.nextFrame()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("stream ended with %v, want EOF", err)
		}
	}
}

func TestEventsWithoutBusStillSayHello(t *testing.T) {
	ts := newTestServer(t, func(c *server.Config) { c.Bus = nil })
	s := openEvents(t, ts.ts.URL, nil)
	assertHello(t, s.next())
}

func TestEventJSONShape(t *testing.T) {
	ts := newTestServer(t, nil)
	s := openEvents(t, ts.ts.URL, nil)
	assertHello(t, s.next())
	ts.bus.Publish(events.TopicSettings, events.TypeSettingsChanged, map[string]string{"key": "theme"})
	// Read the raw line to check the wire names the frontend relies on.
	var raw string
	for raw == "" {
		line, err := s.br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "data: ") {
			raw = strings.TrimPrefix(strings.TrimSpace(line), "data: ")
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"topic", "seq", "type", "data", "time"} {
		if m[k] == nil {
			t.Fatalf("event %s lacks %q", raw, k)
		}
	}
	if string(m["topic"]) != `"settings"` || string(m["seq"]) != "1" || !jsonEqual(t, m["data"], `{"key":"theme"}`) {
		t.Fatalf("event %s", raw)
	}
}

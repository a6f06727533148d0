// Package events is the one broadcast bus of the backend. Every event has a topic and a
// per-topic sequence number, so a window that (re)connects loads a snapshot carrying the
// topic's current seq and then applies only events with a higher one.
package events

import (
	"encoding/json"
	"sync"
	"time"
)

// Event is what every window receives; Data is already JSON so fan-out costs no encoding.
type Event struct {
	Topic string          `json:"topic"`
	Seq   uint64          `json:"seq"`
	Type  string          `json:"type"`
	Data  json.RawMessage `json:"data,omitempty"`
	Time  int64           `json:"time"` // unix milliseconds
}

// Bus fans events out to subscribers; a slow subscriber loses events past its buffer and is
// told so (Dropped), so it can reload snapshots instead of silently drifting.
type Bus struct {
	mu     sync.Mutex
	seq    map[string]uint64
	subs   map[*Subscription]struct{}
	closed bool
	filter func([]byte) []byte // applied to every event's JSON before it is delivered
	drops  uint64              // deliveries lost to full buffers since the bus was made; guarded by mu
}

// Option configures a Bus.
type Option func(*Bus)

// WithFilter passes every event's JSON data through f before any subscriber sees it: the
// one place where what is published can be cleaned (service.Open redacts known secrets).
func WithFilter(f func([]byte) []byte) Option { return func(b *Bus) { b.filter = f } }

// NewBus returns an empty bus.
func NewBus(opts ...Option) *Bus {
	b := &Bus{seq: map[string]uint64{}, subs: map[*Subscription]struct{}{}}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Subscription receives every event published after it was made.
type Subscription struct {
	C       chan Event
	bus     *Bus
	mu      sync.Mutex
	dropped bool
	done    bool
}

// Dropped reports (and clears) whether events were lost since the last call.
func (s *Subscription) Dropped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dropped
	s.dropped = false
	return d
}

// Close stops delivery and closes C.
func (s *Subscription) Close() {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	if s.done {
		return
	}
	s.done = true
	delete(s.bus.subs, s)
	close(s.C)
}

// Subscribe registers a subscriber with a buffer of n events.
func (b *Bus) Subscribe(n int) *Subscription {
	if n <= 0 {
		n = 256
	}
	s := &Subscription{C: make(chan Event, n), bus: b}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.done = true
		close(s.C)
		return s
	}
	b.subs[s] = struct{}{}
	return s
}

// Drops is how many deliveries were lost to a subscriber's full buffer since the bus was
// made (one per event and subscriber that missed it). Each loss also makes its
// subscriber resync; the total is what a soak run checks stays zero.
func (b *Bus) Drops() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.drops
}

// Subscribers is how many subscriptions are open now: one per window's event stream and
// per component listening, so a count that only grows is a subscription never closed.
func (b *Bus) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// Forget drops a topic's sequence number once nothing will be published on it again (a
// deleted conversation's topic): every topic ever used would otherwise stay in memory
// for as long as the process runs. A later Publish on it would start again at 1.
func (b *Bus) Forget(topic string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.seq, topic)
}

// Topics is how many topics the bus keeps a sequence number for.
func (b *Bus) Topics() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.seq)
}

// Seq is the current sequence number of a topic, for snapshots.
func (b *Bus) Seq(topic string) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq[topic]
}

// Publish assigns the next seq of the topic and delivers the event to every subscriber.
// data is marshalled to JSON once; a value that cannot be marshalled is sent as null.
func (b *Bus) Publish(topic, typ string, data any) Event {
	raw, err := json.Marshal(data)
	if err != nil {
		raw = []byte("null")
	}
	if b.filter != nil {
		raw = b.filter(raw)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq[topic]++
	ev := Event{Topic: topic, Seq: b.seq[topic], Type: typ, Data: raw, Time: time.Now().UnixMilli()}
	for s := range b.subs {
		select {
		case s.C <- ev:
		default:
			b.drops++
			s.mu.Lock()
			s.dropped = true
			s.mu.Unlock()
		}
	}
	return ev
}

// Close ends every subscription.
func (b *Bus) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for s := range b.subs {
		s.done = true
		close(s.C)
		delete(b.subs, s)
	}
}

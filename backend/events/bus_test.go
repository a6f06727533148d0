package events

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

func TestSeqIsPerTopicAndOrdered(t *testing.T) {
	b := NewBus()
	a, c := b.Subscribe(16), b.Subscribe(16)
	b.Publish("settings", "x", 1)
	b.Publish("session:1", "x", 2)
	b.Publish("settings", "x", 3)
	for _, s := range []*Subscription{a, c} {
		var got []string
		for i := 0; i < 3; i++ {
			ev := <-s.C
			got = append(got, ev.Topic+":"+string(rune('0'+ev.Seq)))
		}
		want := []string{"settings:1", "session:1:1", "settings:2"}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	}
	if b.Seq("settings") != 2 || b.Seq("session:1") != 1 || b.Seq("none") != 0 {
		t.Fatal("Seq wrong")
	}
}

func TestSlowSubscriberIsToldItDropped(t *testing.T) {
	b := NewBus()
	s := b.Subscribe(1)
	b.Publish("t", "x", nil)
	b.Publish("t", "x", nil) // buffer full: dropped
	if !s.Dropped() {
		t.Fatal("drop not reported")
	}
	if s.Dropped() {
		t.Fatal("Dropped not cleared")
	}
	ev := <-s.C
	if ev.Seq != 1 {
		t.Fatalf("seq %d", ev.Seq)
	}
}

func TestPayloadIsJSONAndUnmarshallableBecomesNull(t *testing.T) {
	b := NewBus()
	s := b.Subscribe(4)
	b.Publish("t", "x", map[string]int{"a": 1})
	b.Publish("t", "x", func() {})
	var m map[string]int
	if err := json.Unmarshal((<-s.C).Data, &m); err != nil || m["a"] != 1 {
		t.Fatal(err)
	}
	if d := (<-s.C).Data; string(d) != "null" {
		t.Fatalf("data %s", d)
	}
}

func TestCloseEndsSubscriptionsAndIsIdempotent(t *testing.T) {
	b := NewBus()
	s := b.Subscribe(4)
	s2 := b.Subscribe(4)
	s2.Close()
	s2.Close()
	b.Close()
	b.Close()
	if _, ok := <-s.C; ok {
		t.Fatal("channel still open")
	}
	late := b.Subscribe(4)
	if _, ok := <-late.C; ok {
		t.Fatal("subscription after close is open")
	}
	b.Publish("t", "x", nil) // must not panic
}

func TestConcurrentPublishKeepsSeqDense(t *testing.T) {
	b := NewBus()
	s := b.Subscribe(10000)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 500; j++ {
				b.Publish("t", "x", j)
			}
		}()
	}
	wg.Wait()
	for want := uint64(1); want <= 4000; want++ {
		if ev := <-s.C; ev.Seq != want {
			t.Fatalf("seq %d, want %d", ev.Seq, want)
		}
	}
}

func TestFilterSeesEveryEventFirst(t *testing.T) {
	b := NewBus(WithFilter(func(raw []byte) []byte {
		return []byte(strings.ReplaceAll(string(raw), "hunter2", "[gone]"))
	}))
	s := b.Subscribe(4)
	ev := b.Publish("settings", "x", map[string]string{"pw": "hunter2"})
	got := <-s.C
	if string(got.Data) != `{"pw":"[gone]"}` || string(ev.Data) != string(got.Data) {
		t.Fatalf("delivered %s, returned %s", got.Data, ev.Data)
	}
}

func TestDropsCountEveryLostDeliveryAndSubscribersTheOpenOnes(t *testing.T) {
	b := NewBus()
	slow, fast := b.Subscribe(1), b.Subscribe(8)
	if got := b.Subscribers(); got != 2 {
		t.Fatalf("subscribers %d, want 2", got)
	}
	for i := 0; i < 4; i++ {
		b.Publish("t", "x", i)
	}
	// slow kept the first and lost three; fast lost none.
	if got := b.Drops(); got != 3 {
		t.Fatalf("drops %d, want 3", got)
	}
	slow.Dropped() // clearing the subscriber's flag leaves the bus's count
	if got := b.Drops(); got != 3 {
		t.Fatalf("drops after Dropped() %d, want 3", got)
	}
	if got := b.Topics(); got != 1 {
		t.Fatalf("topics %d, want 1", got)
	}
	slow.Close()
	fast.Close()
	if got := b.Subscribers(); got != 0 {
		t.Fatalf("subscribers after Close %d, want 0", got)
	}
}

func TestForgetDropsATopicsSeq(t *testing.T) {
	b := NewBus()
	b.Publish("session:1", "x", nil)
	b.Publish("session:2", "x", nil)
	b.Forget("session:1")
	b.Forget("never-used")
	if got := b.Topics(); got != 1 {
		t.Fatalf("topics %d, want 1", got)
	}
	if b.Seq("session:1") != 0 || b.Seq("session:2") != 1 {
		t.Fatalf("seqs %d, %d; want 0, 1", b.Seq("session:1"), b.Seq("session:2"))
	}
}

package notify

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/events"
)

type recorder struct {
	mu    sync.Mutex
	got   []string
	event chan struct{}
}

func (r *recorder) Notify(_ context.Context, title, body string) error {
	r.mu.Lock()
	r.got = append(r.got, title+"|"+body)
	r.mu.Unlock()
	r.event <- struct{}{}
	return nil
}

func TestNotifiesOnlyWhenNoWindowIsFocused(t *testing.T) {
	bus := events.NewBus()
	p := NewPresence(time.Minute)
	rec := &recorder{event: make(chan struct{}, 8)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan struct{}, 8)
	done := make(chan struct{})
	sub := bus.Subscribe(16)
	go func() { watch(ctx, sub, p, rec, nil, func() { seen <- struct{}{} }); close(done) }()
	publish := func(topic, typ string, data any) {
		t.Helper()
		bus.Publish(topic, typ, data)
		select {
		case <-seen:
		case <-time.After(5 * time.Second):
			t.Fatal("event not processed")
		}
	}

	p.Set("w1", true)
	publish(events.TopicApprovals, requestedType, map[string]any{"tool": "sandbox_bash"}) // focused: quiet
	p.Set("w1", false)
	publish(events.TopicSettings, requestedType, map[string]any{"tool": "x"})       // other topic
	publish(events.TopicApprovals, "approval:decided", map[string]any{"tool": "x"}) // other type
	publish(events.TopicApprovals, requestedType, map[string]any{"tool": "mcp__fs__write", "server": "filesystem"})
	cancel()
	<-done
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.got) != 1 || rec.got[0] != "Cairn: approval needed|mcp__fs__write (filesystem) is waiting for your approval." {
		t.Fatalf("notifications = %q", rec.got)
	}
}

func TestPresenceExpires(t *testing.T) {
	now := time.Unix(0, 0)
	p := NewPresence(time.Minute)
	p.now = func() time.Time { return now }
	p.Set("tab", true)
	if !p.AnyFocused() {
		t.Fatal("focused window not seen")
	}
	now = now.Add(2 * time.Minute)
	if p.AnyFocused() {
		t.Fatal("a window that stopped reporting still counts as focused")
	}
	p.Set("tab", true)
	p.Set("tab", false)
	if p.AnyFocused() {
		t.Fatal("blur ignored")
	}
}

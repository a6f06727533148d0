// Package notify raises an OS notification when an approval waits and no window has the
// focus: users have waited hours not knowing a dialog was open. Windows report their focus;
// the watcher listens to the approvals topic.
package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/events"
)

// Notifier shows one desktop notification.
type Notifier interface {
	Notify(ctx context.Context, title, body string) error
}

// requestedType is the approvals event that opens a dialog (approval.EventRequested).
const requestedType = "approval:requested"

// Presence tracks which windows have the focus. A window that stops reporting (closed tab)
// counts as unfocused after it goes quiet.
type Presence struct {
	mu      sync.Mutex
	focused map[string]time.Time
	ttl     time.Duration
	now     func() time.Time
}

// NewPresence returns an empty tracker; a focus report is trusted for ttl (windows
// re-report while focused).
func NewPresence(ttl time.Duration) *Presence {
	if ttl <= 0 {
		ttl = 2 * time.Minute
	}
	return &Presence{focused: map[string]time.Time{}, ttl: ttl, now: time.Now}
}

// Set records a window's focus.
func (p *Presence) Set(window string, focused bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if focused {
		p.focused[window] = p.now()
	} else {
		delete(p.focused, window)
	}
}

// AnyFocused reports whether some window has the focus now.
func (p *Presence) AnyFocused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for w, at := range p.focused {
		if now.Sub(at) > p.ttl {
			delete(p.focused, w)
			continue
		}
		return true
	}
	return false
}

// Watch notifies for every new approval request while no window is focused, until ctx ends.
func Watch(ctx context.Context, bus *events.Bus, p *Presence, n Notifier, log *slog.Logger) {
	watch(ctx, bus.Subscribe(256), p, n, log, nil)
}

// watch is Watch on a given subscription; seen (for tests) runs after each event.
func watch(ctx context.Context, sub *events.Subscription, p *Presence, n Notifier, log *slog.Logger, seen func()) {
	defer sub.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.C:
			if !ok {
				return
			}
			if ev.Topic == events.TopicApprovals && ev.Type == requestedType && !p.AnyFocused() {
				title, body := describe(ev.Data)
				if err := n.Notify(ctx, title, body); err != nil && log != nil {
					log.Warn("approval notification failed", "err", err)
				}
			}
			if seen != nil {
				seen()
			}
		}
	}
}

// describe turns the request into a short, secret-free notification text.
func describe(data json.RawMessage) (string, string) {
	var r struct {
		Tool   string `json:"tool"`
		Server string `json:"server"`
		// The event may carry the request itself or wrap it.
		Request *struct {
			Tool   string `json:"tool"`
			Server string `json:"server"`
		} `json:"request"`
	}
	_ = json.Unmarshal(data, &r)
	if r.Request != nil {
		r.Tool, r.Server = r.Request.Tool, r.Request.Server
	}
	body := "A tool call is waiting for your approval."
	if r.Tool != "" {
		body = fmt.Sprintf("%s is waiting for your approval.", r.Tool)
		if r.Server != "" {
			body = fmt.Sprintf("%s (%s) is waiting for your approval.", r.Tool, r.Server)
		}
	}
	return "Cairn: approval needed", body
}

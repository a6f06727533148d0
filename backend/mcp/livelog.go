package mcp

import (
	"fmt"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/mcp/logring"
)

// Live log budget: per server, at most liveLogBurst lines per liveLogWindow go to the
// windows as mcp:log events.
const (
	liveLogBurst  = 200
	liveLogWindow = time.Second
)

// liveLog limits the log lines one server broadcasts. A server that floods stderr must
// not flood every window, nor push the mcp topic's state events out of the bus's resync
// buffer. Lines over the budget still reach the ring and the log file (Logs, `cairn mcp
// logs`); when the window ends, one line says how many the live view skipped.
type liveLog struct {
	burst   int
	window  time.Duration
	publish func(logring.Line)

	mu      sync.Mutex
	start   time.Time // of the current window
	sent    int
	skipped int
	timer   *time.Timer
	closed  bool
}

func newLiveLog(publish func(logring.Line)) *liveLog {
	return &liveLog{burst: liveLogBurst, window: liveLogWindow, publish: publish}
}

// add broadcasts a line or counts it as skipped. Lines are published under the lock, so
// the live view keeps their order.
func (l *liveLog) add(line logring.Line) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	now := time.Now()
	if now.Sub(l.start) >= l.window {
		l.rollLocked(now)
	}
	if l.sent < l.burst {
		l.sent++
		l.publish(line)
		return
	}
	l.skipped++
	if l.timer == nil {
		l.timer = time.AfterFunc(l.start.Add(l.window).Sub(now), l.tick)
	}
}

func (l *liveLog) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = nil
	if !l.closed {
		l.rollLocked(time.Now())
	}
}

// rollLocked starts a new window, first saying how many lines the last one skipped.
func (l *liveLog) rollLocked(now time.Time) {
	if l.skipped > 0 {
		l.publish(logring.Line{Time: now.UnixMilli(), Stream: logring.StreamEvent,
			Text: fmt.Sprintf("%d more lines were not shown live; the server's log file has them all", l.skipped)})
	}
	l.start, l.sent, l.skipped = now, 0, 0
}

// close stops the pending note (the server was removed or Cairn is closing).
func (l *liveLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
}

package chat

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/events"
)

// livePart is a part of the running answer. For a streaming part, buf holds the text (or
// tool arguments) received so far; pubLen bytes of it were announced to windows and dbLen
// bytes were written to SQLite. Everything is guarded by run.mu.
type livePart struct {
	Part
	buf      []byte
	field    string // "text" | "arguments"
	pubLen   int
	pubU16   int
	dbLen    int
	lastPub  time.Time
	lastDB   time.Time
	dirty    bool // non-text fields changed since the last part:updated
	finished bool
}

func utf16Len(s []byte) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		s = s[size:]
	}
	return n
}

// snapshot returns the part as windows know it: streamed content only as far as announced.
func (lp *livePart) snapshot(published bool) Part {
	p := lp.Part
	if p.Tool != nil {
		t := *p.Tool
		p.Tool = &t
	}
	if lp.field == "" {
		return p
	}
	n := len(lp.buf)
	if published {
		n = lp.pubLen
	}
	switch lp.field {
	case "text":
		p.Text = string(lp.buf[:n])
	case "arguments":
		p.Tool.Arguments = string(lp.buf[:n])
	}
	return p
}

// publish sends an event on the run's session topic. Callers hold r.mu, which is what
// keeps snapshots (taken under r.mu) and the event sequence consistent.
func (r *run) publish(typ string, data any) {
	r.svc.bus.Publish(r.topic, typ, data)
}

// appendPart stores a new part and announces it. For streaming text parts, field names
// the growing field and initial its first content.
func (r *run) appendPart(p Part, field, initial string) *livePart {
	now := time.Now()
	p.ID = newID()
	p.MessageID = r.msgID
	p.Index = len(r.parts)
	p.Round = r.round
	p.CreatedAt, p.UpdatedAt = now.UnixMilli(), now.UnixMilli()
	if p.State == "" {
		p.State = PartDone
	}
	r.nameTool(p.Tool)
	lp := &livePart{Part: p, field: field, lastPub: now, lastDB: now}
	if field != "" {
		lp.buf = append(lp.buf, initial...)
		lp.pubLen, lp.pubU16, lp.dbLen = len(lp.buf), utf16Len(lp.buf), len(lp.buf)
	}
	r.parts = append(r.parts, lp)
	r.writePart(lp, true)
	r.publish(EventPartAppended, lp.snapshot(true))
	return lp
}

// nameTool puts the tool's names for people on a tool part (ToolInfo.ToolRef).
func (r *run) nameTool(ti *ToolInfo) {
	if ti == nil || ti.Name == "" {
		return
	}
	if runner := r.svc.toolRunner(); runner != nil {
		ti.ToolRef, _ = runner.Describe(ti.Name)
	}
}

// writePart stores the part's current state (insert or update). A failed write is logged
// and remembered; the loop surfaces it when the answer ends.
func (r *run) writePart(lp *livePart, insert bool) {
	p := lp.snapshot(false)
	p.UpdatedAt = time.Now().UnixMilli()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	if insert {
		err = insertPart(ctx, r.svc.q, p)
	} else {
		err = updatePart(ctx, r.svc.q, p)
	}
	if err != nil {
		r.svc.log.Warn("chat: write part", "part", p.ID, "err", err)
		if r.writeErr == nil {
			r.writeErr = err
		}
		return
	}
	lp.dbLen, lp.lastDB = len(lp.buf), time.Now()
}

// stream appends a delta to a streaming part, announcing and storing it at most every
// PublishInterval / FlushInterval (or FlushBytes); the ticker catches up when deltas stop.
func (r *run) stream(lp *livePart, delta string) {
	lp.buf = append(lp.buf, delta...)
	now := time.Now()
	if now.Sub(lp.lastPub) >= r.svc.cfg.PublishInterval {
		r.publishDelta(lp, now)
	}
	if now.Sub(lp.lastDB) >= r.svc.cfg.FlushInterval || len(lp.buf)-lp.dbLen >= r.svc.cfg.FlushBytes {
		r.writePart(lp, false)
	}
}

func (r *run) publishDelta(lp *livePart, now time.Time) {
	if lp.pubLen < len(lp.buf) {
		chunk := lp.buf[lp.pubLen:]
		r.publish(EventPartDelta, PartDelta{MessageID: r.msgID, PartID: lp.ID, Index: lp.Index, Field: lp.field, Offset: lp.pubU16, Text: string(chunk)})
		lp.pubU16 += utf16Len(chunk)
		lp.pubLen = len(lp.buf)
	}
	if lp.dirty {
		lp.dirty = false
		r.publish(EventPartUpdated, lp.snapshot(true))
	}
	lp.lastPub = now
}

// updated stores a part whose non-streamed fields changed and announces it, throttled
// when throttle is set (tool progress).
func (r *run) updated(lp *livePart, throttle bool) {
	lp.dirty = true
	now := time.Now()
	if throttle && now.Sub(lp.lastPub) < r.svc.cfg.PublishInterval {
		return // the ticker publishes it
	}
	if !throttle {
		r.writePart(lp, false)
	}
	r.publishDelta(lp, now)
}

// finishPart ends a streaming part: the full content is stored and announced.
func (r *run) finishPart(lp *livePart) {
	if lp == nil || lp.finished {
		return
	}
	lp.finished = true
	lp.State = PartDone
	if lp.field != "" {
		lp.pubLen, lp.pubU16 = len(lp.buf), utf16Len(lp.buf)
	}
	lp.dirty = false
	lp.UpdatedAt = time.Now().UnixMilli()
	r.writePart(lp, false)
	r.publish(EventPartUpdated, lp.snapshot(true))
}

// tick publishes and stores what deltas left pending; called by the run's ticker.
func (r *run) tick(now time.Time) {
	for _, lp := range r.parts {
		if lp.finished && !lp.dirty {
			continue
		}
		if (lp.pubLen < len(lp.buf) || lp.dirty) && now.Sub(lp.lastPub) >= r.svc.cfg.PublishInterval {
			r.publishDelta(lp, now)
		}
		if lp.dbLen < len(lp.buf) && now.Sub(lp.lastDB) >= r.svc.cfg.FlushInterval {
			r.writePart(lp, false)
		}
	}
}

func (r *run) ticker(stop <-chan struct{}) {
	t := time.NewTicker(r.svc.cfg.PublishInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			r.mu.Lock()
			r.tick(now)
			r.mu.Unlock()
		}
	}
}

// overlay replaces the stored parts of the running message with the in-memory ones, as
// far as they were announced. Callers hold r.mu.
func (r *run) overlay(msgs []Message) {
	for i := range msgs {
		if msgs[i].ID != r.msgID {
			continue
		}
		parts := make([]Part, 0, len(r.parts))
		for _, lp := range r.parts {
			parts = append(parts, lp.snapshot(true))
		}
		msgs[i].Parts = parts
	}
}

func (r *run) stateLocked() State {
	if len(r.approvals) > 0 || len(r.childWaits) > 0 {
		return StateAwaitingApproval
	}
	return StateStreaming
}

func (r *run) state() State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stateLocked()
}

// sessionView is the run's session with its current state. Callers hold r.mu.
func (r *run) sessionView() Session {
	sess := r.sess
	sess.State = r.stateLocked()
	return sess
}

// publishState announces the session's state on both topics. Callers hold r.mu.
func (r *run) publishState() {
	sess := r.sessionView()
	r.publish(EventSessionState, StateChange{SessionID: r.sess.ID, State: sess.State, MessageID: r.msgID})
	r.svc.bus.Publish(events.TopicSessions, EventSessionsUpserted, sess)
}

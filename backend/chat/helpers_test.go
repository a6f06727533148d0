package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
)

// harness is a chat service over a real database, the real go-openai client and a local
// OpenAI-wire server.
type harness struct {
	t         testing.TB
	dir       string
	db        *store.DB
	bus       *events.Bus
	settings  *settings.Service
	providers *llm.Service
	svc       *Service
	srv       *llmtest.Server
	provider  llm.Provider
}

type harnessOpt func(*Config)

// testToolsets stands for service's capability list (a test there checks the real one).
type testToolsets struct{}

func (testToolsets) Choosable() []string {
	return []string{"web", "kb", "file", "sandbox", "skill", "location", "mcp"}
}

func (testToolsets) Defaults(kind string) []string {
	if kind == KindTask {
		return []string{"mcp", "sandbox"}
	}
	return []string{"mcp"}
}

func newHarness(t testing.TB, runner ToolRunner, opts ...harnessOpt) *harness {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	sec := secrets.Open(ctx, dir, db, bus, secrets.Options{Force: secrets.BackendFile})
	hc := llm.NewHTTPClient()
	providers := llm.NewService(db, sec, bus, llm.Options{HTTPClient: hc, Retry: &llm.RetryPolicy{Max: 2, Base: 10 * time.Millisecond, Cap: time.Second}})
	st := settings.New(db, bus)
	cfg := Config{DB: db, Bus: bus, Settings: st, Models: providers, Tools: runner, Toolsets: testToolsets{}}
	for _, o := range opts {
		o(&cfg)
	}
	svc, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	p, err := providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-key-123456",
		Models: []llm.Model{{ID: "fake-model", SupportsTools: true, ContextWindow: 32768}, {ID: "no-tools", SupportsTools: false}}})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: dir, db: db, bus: bus, settings: st, providers: providers, svc: svc, srv: srv, provider: p}
	t.Cleanup(func() {
		if err := svc.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		hc.CloseIdleConnections()
		db.Close()
	})
	return h
}

func (h *harness) session(in SessionInput) Session {
	h.t.Helper()
	if in.ProviderID == "" {
		in.ProviderID = h.provider.ID
	}
	s, err := h.svc.CreateSession(context.Background(), in)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// send sends text and waits for the answer to end.
func (h *harness) send(sessionID, text string) (SendResult, Snapshot) {
	h.t.Helper()
	res, err := h.svc.SendMessage(context.Background(), sessionID, text)
	if err != nil {
		h.t.Fatal(err)
	}
	return res, h.wait(sessionID)
}

func (h *harness) wait(sessionID string) Snapshot {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.svc.Wait(ctx, sessionID); err != nil {
		h.t.Fatalf("answer did not end: %v", err)
	}
	snap, err := h.svc.GetSession(context.Background(), sessionID)
	if err != nil {
		h.t.Fatal(err)
	}
	return snap
}

func last(snap Snapshot) Message { return snap.Messages[len(snap.Messages)-1] }

func partTypes(m Message) []PartType {
	var out []PartType
	for _, p := range m.Parts {
		out = append(out, p.Type)
	}
	return out
}

// fakeRunner is a ToolRunner whose tools are functions; calls of one batch run in
// parallel, like concurrency-safe tools in the real pipeline.
type fakeRunner struct {
	defs    []tools.Definition
	run     func(ctx context.Context, c tools.Call) tools.Outcome
	onBatch func(obs tools.Observer, calls []tools.Call)

	mu        sync.Mutex
	batches   [][]tools.Call
	scopes    []tools.Scope
	forgotten []string
	started   chan tools.Call
	ended     chan struct{} // one value per RunBatch that returned
}

func newFakeRunner(run func(ctx context.Context, c tools.Call) tools.Outcome, names ...string) *fakeRunner {
	f := &fakeRunner{run: run, started: make(chan tools.Call, 64), ended: make(chan struct{}, 64)}
	for _, n := range names {
		f.defs = append(f.defs, tools.Definition{Name: n, Description: "the " + n + " tool",
			Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)})
	}
	return f
}

func (f *fakeRunner) Select(ctx context.Context, scope tools.Scope) (tools.Selection, error) {
	f.mu.Lock()
	f.scopes = append(f.scopes, scope)
	f.mu.Unlock()
	return tools.Selection{Tools: f.defs, Instructions: "Use the tools when they help."}, nil
}

func (f *fakeRunner) RunBatch(ctx context.Context, calls []tools.Call, obs tools.Observer) []tools.Outcome {
	f.mu.Lock()
	f.batches = append(f.batches, calls)
	f.mu.Unlock()
	defer func() { f.ended <- struct{}{} }()
	if f.onBatch != nil {
		f.onBatch(obs, calls)
	}
	out := make([]tools.Outcome, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obs.CallStarted(c)
			f.started <- c
			start := time.Now()
			o := f.run(ctx, c)
			o.CallID, o.Name, o.Duration = c.ID, c.Name, time.Since(start)
			obs.CallFinished(o)
			out[i] = o
		}()
	}
	wg.Wait()
	return out
}

// Describe names a tool of defs as a built-in one: "<namespace>_<title>".
func (f *fakeRunner) Describe(name string) (tools.ToolRef, bool) {
	for _, d := range f.defs {
		if ns, title, ok := strings.Cut(d.Name, "_"); ok && d.Name == name {
			return tools.ToolRef{Namespace: ns, Title: title}, true
		}
	}
	return tools.ToolRef{}, false
}

func (f *fakeRunner) Forget(sessionID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forgotten = append(f.forgotten, sessionID)
	return nil
}

func (f *fakeRunner) batchCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.batches)
}

func resultOf(content string) tools.Outcome {
	return tools.Outcome{Status: tools.StatusResult, Content: content}
}

// window applies session events the way the UI does: a snapshot, then only newer events.
type window struct {
	seq   uint64
	msgs  []*Message
	state State
}

func (w *window) load(s Snapshot) {
	w.seq, w.state, w.msgs = s.Seq, s.State, nil
	for i := range s.Messages {
		m := s.Messages[i]
		m.Parts = append([]Part(nil), m.Parts...)
		w.msgs = append(w.msgs, &m)
	}
}

func (w *window) msg(id string) *Message {
	for _, m := range w.msgs {
		if m.ID == id {
			return m
		}
	}
	return nil
}

func u16(s string) []uint16 { return utf16.Encode([]rune(s)) }

func (w *window) apply(ev events.Event) error {
	if ev.Seq <= w.seq {
		return nil
	}
	if ev.Seq != w.seq+1 {
		return fmt.Errorf("gap: seq %d after %d", ev.Seq, w.seq)
	}
	w.seq = ev.Seq
	switch ev.Type {
	case EventMessageAppended:
		var m Message
		if err := json.Unmarshal(ev.Data, &m); err != nil {
			return err
		}
		w.msgs = append(w.msgs, &m)
	case EventMessageUpdated:
		var m Message
		if err := json.Unmarshal(ev.Data, &m); err != nil {
			return err
		}
		cur := w.msg(m.ID)
		if cur == nil {
			return fmt.Errorf("update of unknown message %s", m.ID)
		}
		cur.Status, cur.Usage, cur.Error, cur.FinishReason = m.Status, m.Usage, m.Error, m.FinishReason
	case EventMessagesHidden:
		var d MessagesHidden
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return err
		}
		gone := map[string]bool{}
		for _, id := range d.MessageIDs {
			gone[id] = true
		}
		var keep []*Message
		for _, m := range w.msgs {
			if !gone[m.ID] {
				keep = append(keep, m)
			}
		}
		w.msgs = keep
	case EventPartAppended, EventPartUpdated:
		var p Part
		if err := json.Unmarshal(ev.Data, &p); err != nil {
			return err
		}
		m := w.msg(p.MessageID)
		if m == nil {
			return fmt.Errorf("part of unknown message %s", p.MessageID)
		}
		for i := range m.Parts {
			if m.Parts[i].ID == p.ID {
				m.Parts[i] = p
				return nil
			}
		}
		if ev.Type == EventPartUpdated {
			return fmt.Errorf("update of unknown part %s", p.ID)
		}
		m.Parts = append(m.Parts, p)
	case EventPartDelta:
		var d PartDelta
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return err
		}
		m := w.msg(d.MessageID)
		if m == nil {
			return fmt.Errorf("delta for unknown message")
		}
		for i := range m.Parts {
			p := &m.Parts[i]
			if p.ID != d.PartID {
				continue
			}
			field := &p.Text
			if d.Field == "arguments" {
				field = &p.Tool.Arguments
			}
			cur := u16(*field)
			if d.Offset > len(cur) {
				return fmt.Errorf("delta offset %d beyond %d: reload", d.Offset, len(cur))
			}
			*field = string(utf16.Decode(cur[:d.Offset])) + d.Text
			return nil
		}
		return fmt.Errorf("delta for unknown part %s", d.PartID)
	case EventSessionState:
		var sc StateChange
		if err := json.Unmarshal(ev.Data, &sc); err != nil {
			return err
		}
		w.state = sc.State
	}
	return nil
}

// comparable reduces a message list to what a window renders.
func renderable(msgs []*Message) string {
	type p struct {
		Type  PartType
		State string
		Text  string
		Tool  *ToolInfo
		Err   apperr.Code
	}
	type m struct {
		ID, Role, Status string
		Parts            []p
	}
	var out []m
	for _, x := range msgs {
		mm := m{ID: x.ID, Role: x.Role, Status: x.Status}
		for _, pp := range x.Parts {
			var code apperr.Code
			if pp.Status != nil && pp.Status.Error != nil {
				code = pp.Status.Error.Code
			}
			var ti *ToolInfo
			if pp.Tool != nil {
				t := *pp.Tool
				t.Progress, t.StartedAt, t.DurationMs = nil, 0, 0
				ti = &t
			}
			mm.Parts = append(mm.Parts, p{pp.Type, pp.State, pp.Text, ti, code})
		}
		out = append(out, mm)
	}
	b, _ := json.MarshalIndent(out, "", " ")
	return string(b)
}

func ptrs(ms []Message) []*Message {
	out := make([]*Message, len(ms))
	for i := range ms {
		out[i] = &ms[i]
	}
	return out
}

// drain applies every event of sub to w until the session is idle again.
func drainUntilIdle(t *testing.T, sub *events.Subscription, topic string, w *window) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-sub.C:
			if ev.Topic != topic {
				continue
			}
			if err := w.apply(ev); err != nil {
				t.Fatalf("window: %v (event %s %s)", err, ev.Type, ev.Data)
			}
			if ev.Type == EventSessionState && w.state == StateIdle {
				return
			}
		case <-timeout:
			t.Fatal("no idle state event")
		}
	}
}

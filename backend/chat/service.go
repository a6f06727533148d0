package chat

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/pidcheck"
	"github.com/cairn-app/cairn/backend/redact"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/store"
)

// Config wires a Service. Tools may be nil (no tools are offered); Settings may be nil
// (every setting at its default); the durations have defaults.
type Config struct {
	DB       *store.DB
	Bus      *events.Bus
	Settings Settings
	Models   Models
	// Prices prices answers by their usage; nil shows no cost.
	Prices Prices
	Tools  ToolRunner
	// Toolsets are the toolsets a session may enable and those a new one has (service's
	// capability list); nil knows none.
	Toolsets Toolsets
	Log      *slog.Logger
	// Redact cleans known secrets out of provider and tool errors and tool output before
	// they are stored, published or given to the model; nil cleans nothing.
	Redact *redact.Set
	// Attachments is the store of the files users attach to messages; nil refuses them.
	Attachments Attachments
	// Notices are told to the model at the start of each round (background tasks that
	// ended); nil tells nothing.
	Notices Notices

	// FlushInterval bounds how long streamed text waits before it is written to SQLite
	// (default 100 ms); FlushBytes writes earlier when that much text is pending (4 KiB).
	FlushInterval time.Duration
	FlushBytes    int
	// PublishInterval bounds part events per streaming part (default 50 ms, ≤ 20/s).
	PublishInterval time.Duration
	// StopGrace is how long Stop waits for running tools to return after cancellation
	// before they are recorded as stopped and abandoned (default 5 s).
	StopGrace time.Duration
}

// Service is the chat backend of one data directory.
type Service struct {
	cfg   Config
	db    *store.DB
	q     cachedQ // s.db through prepared statements
	stmts *stmtCache
	bus   *events.Bus
	log   *slog.Logger
	base  context.Context
	quit  context.CancelFunc
	owner pidcheck.Owner // this process, recorded on the messages it streams

	mu     sync.Mutex
	runs   map[string]*run // by session id
	tools  ToolRunner
	closed bool
}

// toolRunner is the tool system (Config.Tools, set once); nil offers no tools.
func (s *Service) toolRunner() ToolRunner { return s.tools }

// New returns the chat service and marks messages left streaming by a dead process as
// interrupted (their parts are kept).
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = 100 * time.Millisecond
	}
	if cfg.FlushBytes <= 0 {
		cfg.FlushBytes = 4096
	}
	if cfg.PublishInterval <= 0 {
		cfg.PublishInterval = 50 * time.Millisecond
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 5 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Settings == nil {
		cfg.Settings = settings.Defaults{}
	}
	if cfg.Toolsets == nil {
		cfg.Toolsets = noToolsets{}
	}
	base, quit := context.WithCancel(context.Background())
	s := &Service{cfg: cfg, db: cfg.DB, bus: cfg.Bus, log: cfg.Log, base: base, quit: quit, owner: pidcheck.Self(),
		runs: map[string]*run{}, tools: cfg.Tools}
	s.stmts = &stmtCache{db: cfg.DB.DB}
	s.q = cachedQ{c: s.stmts}
	if _, err := s.recover(ctx, ""); err != nil {
		quit()
		return nil, err
	}
	return s, nil
}

// Close stops every running answer (marking it stopped) and waits for them.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closed = true
	runs := make([]*run, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	s.quit()
	deadline := time.After(s.cfg.StopGrace + 5*time.Second)
	for _, r := range runs {
		select {
		case <-r.done:
		case <-deadline:
			return fmt.Errorf("chat: answers still running at close")
		}
	}
	s.stmts.close()
	return nil
}

// recover marks streaming messages whose process is gone as interrupted; sessionID ""
// checks every session. A message of this PID that no run of this service streams is
// stale too (an earlier service in this process), and so is one whose PID now belongs to
// a process that started at another time than the owner did. It returns the ids it
// changed.
func (s *Service) recover(ctx context.Context, sessionID string) ([]string, error) {
	q := "SELECT id, owner_pid, owner_start FROM messages WHERE status = 'streaming'"
	args := []any{}
	if sessionID != "" {
		q += " AND session_id = ?"
		args = append(args, sessionID)
	}
	rows, err := s.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "find interrupted messages")
	}
	var stale []string
	for rows.Next() {
		var id string
		var o pidcheck.Owner
		if err := rows.Scan(&id, &o.PID, &o.Start); err != nil {
			rows.Close()
			return nil, apperr.Wrap(err, apperr.Internal, "find interrupted messages")
		}
		if s.isLocal(id) {
			continue
		}
		if o.PID <= 0 || o.PID == s.owner.PID || !o.Alive() {
			stale = append(stale, id)
		}
	}
	rows.Close()
	now := time.Now().UnixMilli()
	for _, id := range stale {
		err := s.db.Tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, "UPDATE messages SET status = 'interrupted', updated_at = ? WHERE id = ? AND status = 'streaming'", now, id); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "UPDATE parts SET state = 'done', updated_at = ? WHERE message_id = ? AND state = 'streaming'", now, id)
			return err
		})
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "mark message interrupted")
		}
	}
	if len(stale) > 0 {
		s.log.Info("chat: marked interrupted messages", "count", len(stale))
	}
	return stale, nil
}

// isLocal reports whether a message is being streamed by this process.
func (s *Service) isLocal(messageID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r.msgID == messageID {
			return true
		}
	}
	return false
}

// State is the one place a session's state is derived: idle without a run in this
// process; awaiting-approval while any call of the run waits for a decision; else
// streaming.
func (s *Service) State(sessionID string) State {
	s.mu.Lock()
	r := s.runs[sessionID]
	s.mu.Unlock()
	if r == nil {
		return StateIdle
	}
	return r.state()
}

func (s *Service) withState(sess Session) Session {
	sess.State = s.State(sess.ID)
	return sess
}

// ListSessions returns sessions, pinned first, then by their last message (a rename does
// not move one), archived ones included and flagged; a non-empty query keeps those whose
// title contains it (case-insensitive for Latin letters).
func (s *Service) ListSessions(ctx context.Context, query string) (SessionList, error) {
	seq := s.bus.Seq(events.TopicSessions)
	// A sub-agent's conversation is opened from its parent's card, not listed.
	q := "SELECT " + sessionSelect + " FROM sessions WHERE parent_session_id IS NULL"
	var args []any
	if query = strings.TrimSpace(query); query != "" {
		q += ` AND title LIKE ? ESCAPE '\'`
		args = append(args, "%"+escapeLike(query)+"%")
	}
	q += " ORDER BY pinned_at > 0 DESC, active_at DESC, id"
	rows, err := s.q.QueryContext(ctx, q, args...)
	if err != nil {
		return SessionList{}, apperr.Wrap(err, apperr.Internal, "list sessions")
	}
	defer rows.Close()
	out := SessionList{Seq: seq, Sessions: []Session{}}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return SessionList{}, apperr.Wrap(err, apperr.Internal, "list sessions")
		}
		out.Sessions = append(out.Sessions, s.withState(sess))
	}
	return out, rows.Err()
}

// Toolsets is what chat needs of the capability list.
type Toolsets interface {
	// Choosable names the toolsets a session may enable.
	Choosable() []string
	// Defaults are the toolsets of a new session of a kind that names none: the user's
	// MCP servers in every session (as other desktop clients do), and the sandbox in task
	// sessions. An explicit empty list means no tools.
	Defaults(kind string) []string
}

type noToolsets struct{}

func (noToolsets) Choosable() []string      { return nil }
func (noToolsets) Defaults(string) []string { return []string{} }

func (s *Service) checkToolsets(ts []string) ([]string, error) {
	valid := s.cfg.Toolsets.Choosable()
	out := []string{}
	for _, t := range ts {
		t = strings.TrimSpace(t)
		if t == "" || slices.Contains(out, t) {
			continue
		}
		if !slices.Contains(valid, t) {
			return nil, badArg("unknown toolset %q (known: %s)", t, strings.Join(valid, ", "))
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return out, nil
}

// nameTools gives the tool parts of a snapshot that were written without the tool's
// names (by an older Cairn) the names the tool has now, when it still exists.
func (s *Service) nameTools(msgs []Message) {
	runner := s.toolRunner()
	if runner == nil {
		return
	}
	for i := range msgs {
		for j := range msgs[i].Parts {
			if ti := msgs[i].Parts[j].Tool; ti != nil && ti.Namespace == "" && ti.Name != "" {
				ti.ToolRef, _ = runner.Describe(ti.Name)
			}
		}
	}
}

// checkReasoning refuses a reasoning choice no provider knows.
func checkReasoning(r llm.Reasoning) error {
	if why := llm.CheckReasoning(r); why != "" {
		return badArg("%s", why)
	}
	return nil
}

func checkTemperature(t *float64) error {
	if t != nil && (*t < 0 || *t > 2) {
		return badArg("temperature must be between 0 and 2")
	}
	return nil
}

// checkParams refuses request parameters no provider takes.
func checkParams(topP *float64, maxTokens, contextMessages int) error {
	switch {
	case topP != nil && (*topP < 0 || *topP > 1):
		return badArg("top-p must be between 0 and 1")
	case maxTokens < 0 || maxTokens > 1_000_000:
		return badArg("max output tokens must be between 0 (the model's default) and 1000000")
	case contextMessages < 0 || contextMessages > 10_000:
		return badArg("earlier messages must be between 0 (all) and 10000")
	}
	return nil
}

func badArg(format string, args ...any) *apperr.Error {
	msg := fmt.Sprintf(format, args...)
	return apperr.New(apperr.InvalidArgument, "%s", msg).WithParam("message", msg)
}

func cleanTitle(t string) string {
	t = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, t)
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > 120 {
		t = string(r[:120])
	}
	return t
}

// titleFrom makes a session title from the first user message.
func titleFrom(text string) string {
	line := strings.TrimSpace(text)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = cleanTitle(line)
	if r := []rune(line); len(r) > 60 {
		line = strings.TrimSpace(string(r[:60])) + "…"
	}
	return line
}

// CreateSession makes a session. Without a provider it takes the provider and model of
// the most recently used session, so a new chat continues with what the user last chose.
func (s *Service) CreateSession(ctx context.Context, in SessionInput) (Session, error) {
	kind := in.Kind
	if kind == "" {
		kind = KindChat
	}
	if kind != KindChat && kind != KindTask {
		return Session{}, badArg("kind must be chat or task")
	}
	if in.ReuseEmpty {
		if sess, ok, err := s.reuseEmpty(ctx, kind); ok || err != nil {
			return sess, err
		}
	}
	in.Kind = kind
	sess, err := s.insertSession(ctx, in)
	if err != nil {
		return Session{}, err
	}
	s.bus.Publish(events.TopicSessions, EventSessionsUpserted, sess)
	return sess, nil
}

// insertSession checks and stores a new session of in.Kind without announcing it.
func (s *Service) insertSession(ctx context.Context, in SessionInput) (Session, error) {
	kind := in.Kind
	if err := checkTemperature(in.Temperature); err != nil {
		return Session{}, err
	}
	if err := checkReasoning(in.Reasoning); err != nil {
		return Session{}, err
	}
	if err := checkParams(in.TopP, in.MaxTokens, in.ContextMessages); err != nil {
		return Session{}, err
	}
	if in.Toolsets == nil {
		in.Toolsets = s.cfg.Toolsets.Defaults(kind)
	}
	toolsets, err := s.checkToolsets(in.Toolsets)
	if err != nil {
		return Session{}, err
	}
	provider, model := in.ProviderID, in.Model
	if provider == "" {
		var p, m string
		err := s.q.QueryRowContext(ctx, "SELECT provider_id, model FROM sessions WHERE provider_id IS NOT NULL ORDER BY updated_at DESC LIMIT 1").Scan(&p, &m)
		if err == nil {
			provider = p
			if model == "" {
				model = m
			}
		}
	} else if err := s.checkProvider(ctx, provider); err != nil {
		return Session{}, err
	}
	now := time.Now().UnixMilli()
	sess := Session{ID: newID(), Kind: kind, Title: cleanTitle(in.Title), ProviderID: provider, Model: strings.TrimSpace(model),
		SystemPrompt: in.SystemPrompt, Temperature: in.Temperature, TopP: in.TopP, MaxTokens: in.MaxTokens, ContextMessages: in.ContextMessages,
		Toolsets: toolsets, Reasoning: in.Reasoning, CreatedAt: now, UpdatedAt: now, ActiveAt: now}
	_, err = s.q.ExecContext(ctx, "INSERT INTO sessions("+strings.ReplaceAll(sessionCols, "COALESCE(provider_id, '')", "provider_id")+") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		sess.ID, sess.Kind, sess.Title, nullString(sess.ProviderID), sess.Model, sess.SystemPrompt, nullTemp(sess.Temperature), toolsetsJSON(sess.Toolsets),
		sess.Reasoning.Effort, sess.Reasoning.Budget, now, now)
	if err == nil {
		err = saveParams(ctx, s.q, sess)
	}
	if err != nil {
		return Session{}, apperr.Wrap(err, apperr.Internal, "create session")
	}
	sess.State = StateIdle
	return sess, nil
}

// checkProvider resolves a provider reference to make sure it exists.
func (s *Service) checkProvider(ctx context.Context, id string) error {
	var n int
	if err := s.q.QueryRowContext(ctx, "SELECT COUNT(*) FROM providers WHERE id = ?", id).Scan(&n); err != nil {
		return apperr.Wrap(err, apperr.Internal, "check provider")
	}
	if n == 0 {
		return apperr.New(apperr.ProviderNotFound, "no provider %s", id).WithParam("name", id)
	}
	return nil
}

// UpdateSession applies a patch; the change is broadcast on both topics.
func (s *Service) UpdateSession(ctx context.Context, id string, p SessionPatch) (Session, error) {
	sess, err := loadSession(ctx, s.q, id)
	if err != nil {
		return Session{}, err
	}
	if p.Title != nil {
		sess.Title = cleanTitle(*p.Title)
	}
	if p.ProviderID != nil {
		if *p.ProviderID != "" {
			if err := s.checkProvider(ctx, *p.ProviderID); err != nil {
				return Session{}, err
			}
		}
		if *p.ProviderID != sess.ProviderID && p.Model == nil {
			sess.Model = "" // another provider: its default model unless one is given
		}
		sess.ProviderID = *p.ProviderID
	}
	if p.Model != nil {
		sess.Model = strings.TrimSpace(*p.Model)
	}
	if p.SystemPrompt != nil {
		sess.SystemPrompt = *p.SystemPrompt
	}
	if p.ResetTemperature {
		sess.Temperature = nil
	} else if p.Temperature != nil {
		if err := checkTemperature(p.Temperature); err != nil {
			return Session{}, err
		}
		sess.Temperature = p.Temperature
	}
	if err := patchParams(&sess, p); err != nil {
		return Session{}, err
	}
	if p.Reasoning != nil {
		if err := checkReasoning(*p.Reasoning); err != nil {
			return Session{}, err
		}
		sess.Reasoning = *p.Reasoning
	}
	if p.Toolsets != nil {
		ts, err := s.checkToolsets(*p.Toolsets)
		if err != nil {
			return Session{}, err
		}
		sess.Toolsets = ts
	}
	sess.UpdatedAt = time.Now().UnixMilli()
	_, err = s.q.ExecContext(ctx, "UPDATE sessions SET title = ?, provider_id = ?, model = ?, system_prompt = ?, temperature = ?, toolsets = ?, reasoning_effort = ?, reasoning_budget = ?, updated_at = ? WHERE id = ?",
		sess.Title, nullString(sess.ProviderID), sess.Model, sess.SystemPrompt, nullTemp(sess.Temperature), toolsetsJSON(sess.Toolsets),
		sess.Reasoning.Effort, sess.Reasoning.Budget, sess.UpdatedAt, id)
	if err == nil {
		err = saveParams(ctx, s.q, sess)
	}
	if err != nil {
		return Session{}, apperr.Wrap(err, apperr.Internal, "update session")
	}
	sess = s.withState(sess)
	s.publishSession(sess)
	return sess, nil
}

// patchParams applies a patch's request parameters (top-p, max tokens, earlier messages).
func patchParams(sess *Session, p SessionPatch) error {
	next := *sess
	if p.ResetTopP {
		next.TopP = nil
	} else if p.TopP != nil {
		next.TopP = p.TopP
	}
	if p.MaxTokens != nil {
		next.MaxTokens = *p.MaxTokens
	}
	if p.ContextMessages != nil {
		next.ContextMessages = *p.ContextMessages
	}
	if err := checkParams(next.TopP, next.MaxTokens, next.ContextMessages); err != nil {
		return err
	}
	*sess = next
	return nil
}

func (s *Service) publishSession(sess Session) {
	s.bus.Publish(events.SessionTopic(sess.ID), EventSessionUpdated, sess)
	s.bus.Publish(events.TopicSessions, EventSessionsUpserted, sess)
}

// RenameSession sets a session's title.
func (s *Service) RenameSession(ctx context.Context, id, title string) (Session, error) {
	return s.UpdateSession(ctx, id, SessionPatch{Title: &title})
}

// DeleteSession stops the session's answer if one runs, then removes it with its messages,
// and has the tool runner forget it (ledgers, spilled results), so nothing of a deleted
// session stays behind for the life of the process or in the data directory.
func (s *Service) DeleteSession(ctx context.Context, id string) error {
	if _, err := loadSession(ctx, s.q, id); err != nil {
		return err
	}
	if err := s.Stop(ctx, id); err != nil {
		return err
	}
	files, err := storedAttachmentIDs(ctx, s.q, id, 0)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "delete session")
	}
	if _, err := s.q.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id); err != nil {
		return apperr.Wrap(err, apperr.Internal, "delete session")
	}
	s.release(ctx, files)
	if t := s.toolRunner(); t != nil {
		// The session is gone either way; a folder left behind is only disk space.
		if err := t.Forget(id); err != nil {
			s.log.Warn("chat: forget deleted session", "session", id, "err", err)
		}
	}
	ref := SessionRef{SessionID: id}
	s.bus.Publish(events.SessionTopic(id), EventSessionDeleted, ref)
	s.bus.Forget(events.SessionTopic(id)) // its last event: the bus need not keep its seq
	s.bus.Publish(events.TopicSessions, EventSessionsRemoved, ref)
	return nil
}

// GetSession returns a session with the messages and parts of its chosen path, stamped
// with the topic's seq.
// While an answer streams, its parts are taken from memory as far as they were announced,
// so the snapshot and the later deltas fit together exactly.
func (s *Service) GetSession(ctx context.Context, id string) (Snapshot, error) {
	s.mu.Lock()
	r := s.runs[id]
	s.mu.Unlock()
	if r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
	} else if _, err := s.recover(ctx, id); err != nil {
		return Snapshot{}, err
	}
	seq := s.bus.Seq(events.SessionTopic(id))
	sess, err := loadSession(ctx, s.q, id)
	if err != nil {
		return Snapshot{}, err
	}
	all, err := loadMessages(ctx, s.q, id)
	if err != nil {
		return Snapshot{}, err
	}
	msgs := Path(all, sess.ChosenRootID)
	if r != nil {
		r.overlay(msgs)
	}
	s.nameTools(msgs)
	s.priceMessages(ctx, msgs)
	state := StateIdle
	if r != nil {
		state = r.stateLocked()
	}
	sess.State = state
	return Snapshot{Seq: seq, Session: sess, Messages: msgs, State: state, EditMode: EditMode}, nil
}

// priceMessages sets the cost of every answer with a usage, at its model's current price.
func (s *Service) priceMessages(ctx context.Context, msgs []Message) {
	seen := map[string]*llm.ModelPrice{}
	for i := range msgs {
		m := &msgs[i]
		if m.Role == RoleAssistant {
			m.Cost = s.costOf(ctx, m.ProviderID, m.Model, m.Usage, seen)
		}
	}
}

// costOf prices one answer's usage; seen keeps the prices already looked up, by provider
// and model, so a conversation's answers cost one lookup per model.
func (s *Service) costOf(ctx context.Context, providerID, model string, u *llm.Usage, seen map[string]*llm.ModelPrice) *llm.Cost {
	if s.cfg.Prices == nil || u == nil || providerID == "" || model == "" {
		return nil
	}
	key := providerID + "\x00" + model
	p, ok := seen[key]
	if !ok {
		p = s.cfg.Prices.PriceOf(ctx, providerID, model)
		seen[key] = p
	}
	return llm.CostOf(u, p)
}

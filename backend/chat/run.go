package chat

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/pidcheck"
	"github.com/cairn-app/cairn/backend/tools"
)

// run is one answer being produced: the assistant message, its live parts and the
// cancellation of everything it started.
type run struct {
	svc    *Service
	sess   Session
	msgID  string
	topic  string
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	parts     []*livePart
	open      *livePart         // the text or reasoning part receiving deltas
	roundCall map[int]*livePart // tool-call parts of the current round by stream index
	calls     map[string]*livePart
	results   map[string]tools.Outcome
	approvals map[string]bool
	round     int
	usage     *llm.Usage
	finish    string
	writeErr  error
	meta      Message      // the assistant message without parts
	closed    bool         // the answer ended (or its tools were abandoned): late reports are ignored
	resume    *tools.Call  // a call interrupted while it waited for approval, replayed first
	files     []Attachment // documents of the conversation read through the file tools
	// child is set for a sub-agent's answer; parent is the run of the session it acts
	// for, when that one runs here, and childWaits counts the approvals its children
	// wait for (the parent shows awaiting-approval meanwhile).
	child      *ChildRun
	parent     *run
	childWaits map[*run]int
}

// ResumeCall continues a session whose answer was interrupted while a call waited for
// approval (a crash or quit): a new assistant message replays that call through the
// pipeline, whose permission step asks again, and the model carries on with its result.
// Nothing runs unasked. It returns once the new answer has started.
func (s *Service) ResumeCall(ctx context.Context, call tools.Call) error {
	if call.SessionID == "" || call.Name == "" {
		return badArg("nothing to resume")
	}
	_, err := s.start(ctx, call.SessionID, userInput{}, &call, nil)
	return err
}

// SendMessage adds the user's text to the session and starts the answer. It returns once
// both messages are stored; the answer streams as events.
func (s *Service) SendMessage(ctx context.Context, sessionID, text string) (SendResult, error) {
	return s.Send(ctx, sessionID, text, nil)
}

// Send is SendMessage with attachments: uploads (files.Store) by ID, and files that could
// not be taken, which the message lists as left out. Text may be empty when files are
// attached. An image for a model without vision is refused before anything is stored.
func (s *Service) Send(ctx context.Context, sessionID, text string, files []AttachmentInput) (SendResult, error) {
	if strings.TrimSpace(text) == "" && len(files) == 0 {
		return SendResult{}, badArg("the message is empty")
	}
	if strings.TrimSpace(text) == "" {
		text = ""
	}
	return s.start(ctx, sessionID, userInput{text: text, files: files}, nil, nil)
}

// Regenerate answers the last user message of the chosen path again. The new answer is
// a version beside the earlier ones, which stay (the message's switcher moves between
// them); the result lists what left the path.
func (s *Service) Regenerate(ctx context.Context, sessionID string) (SendResult, error) {
	return s.start(ctx, sessionID, userInput{}, nil, func(t tree, path []int) (placement, error) {
		for i := len(path) - 1; i >= 0; i-- {
			if t.msgs[path[i]].Role == RoleUser {
				return after(t, path, i), nil
			}
		}
		return placement{}, apperr.New(apperr.MessageNotFound, "session %s has no user message to answer", sessionID)
	})
}

// EditAndResend sends new text in place of a user message and answers it. The new
// question is a version beside the old one (EditMode "branch"): the old one and what
// followed it stay reachable; the result lists what left the path.
func (s *Service) EditAndResend(ctx context.Context, sessionID, messageID, text string) (SendResult, error) {
	if strings.TrimSpace(text) == "" {
		return SendResult{}, badArg("the message is empty")
	}
	// The new version keeps the files of the one it replaces.
	carried, err := s.messageAttachments(ctx, sessionID, messageID)
	if err != nil {
		return SendResult{}, err
	}
	res, err := s.start(ctx, sessionID, userInput{text: text, carried: carried}, nil, func(t tree, path []int) (placement, error) {
		i, ok := t.byID[messageID]
		if !ok {
			return placement{}, apperr.New(apperr.MessageNotFound, "no message %s in session %s", messageID, sessionID)
		}
		if t.msgs[i].Role != RoleUser {
			return placement{}, badArg("only your own messages can be edited")
		}
		at := slices.Index(path, i)
		if at < 0 {
			return placement{}, badArg("the message is not in the conversation shown; choose its version first")
		}
		return after(t, path, at-1), nil
	})
	res.EditMode = EditMode
	return res, err
}

// messageAttachments are the attachments of one stored message (none when it has none or
// is not found: the edit itself reports that).
func (s *Service) messageAttachments(ctx context.Context, sessionID, messageID string) ([]Attachment, error) {
	msgs, err := loadMessages(ctx, s.q, sessionID)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if m.ID == messageID {
			return attachmentsOf(m), nil
		}
	}
	return nil, nil
}

// continuePath places a plain send after the last message of the chosen path.
func continuePath(t tree, path []int) (placement, error) {
	return after(t, path, len(path)-1), nil
}

// Stop cancels the session's answer (the HTTP stream and every running tool) and waits
// until what arrived is stored and the message is marked stopped. Stopping an idle
// session does nothing.
func (s *Service) Stop(ctx context.Context, sessionID string) error {
	s.mu.Lock()
	r := s.runs[sessionID]
	s.mu.Unlock()
	if r == nil {
		return nil
	}
	r.cancel()
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return apperr.Wrap(ctx.Err(), apperr.Canceled, "stop session %s", sessionID)
	}
}

// Wait blocks until the session has no running answer (or ctx ends); for the CLI and tests.
func (s *Service) Wait(ctx context.Context, sessionID string) error {
	s.mu.Lock()
	r := s.runs[sessionID]
	s.mu.Unlock()
	if r == nil {
		return nil
	}
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// placeFunc says where in the tree a send's messages go, given the session's messages and
// the indexes of its chosen path.
type placeFunc func(t tree, path []int) (placement, error)

// start stores the user message (when in has text or files) and an empty streaming
// assistant message, then runs the loop in the background.
func (s *Service) start(ctx context.Context, sessionID string, in userInput, resume *tools.Call, place placeFunc) (SendResult, error) {
	text := in.text
	if place == nil {
		place = continuePath
	}
	sess, err := loadSession(ctx, s.q, sessionID)
	if err != nil {
		return SendResult{}, err
	}
	runCtx, cancel := s.runContext(ctx, in.child)
	r := &run{svc: s, sess: sess, msgID: newID(), topic: events.SessionTopic(sessionID), ctx: runCtx, cancel: cancel,
		done: make(chan struct{}), roundCall: map[int]*livePart{}, calls: map[string]*livePart{},
		results: map[string]tools.Outcome{}, approvals: map[string]bool{}, resume: resume, child: in.child}
	s.mu.Lock()
	if in.child != nil {
		r.parent, in.child.run = s.runs[in.child.ActAs], r
	}
	switch {
	case s.closed:
		s.mu.Unlock()
		cancel()
		return SendResult{}, apperr.New(apperr.Canceled, "chat service closed")
	case s.runs[sessionID] != nil:
		s.mu.Unlock()
		cancel()
		return SendResult{}, apperr.New(apperr.SessionBusy, "session %s is answering", sessionID)
	}
	s.runs[sessionID] = r // reserved: a second send now gets SessionBusy
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		delete(s.runs, sessionID)
		s.mu.Unlock()
		cancel()
		close(r.done)
	}

	target, err := s.cfg.Models.Resolve(ctx, sess.ProviderID, sess.Model)
	if err != nil {
		release()
		return SendResult{}, err
	}
	atts, err := s.resolveAttachments(ctx, in, target)
	if err != nil {
		release()
		return SendResult{}, err
	}
	now := time.Now().UnixMilli()
	res := SendResult{SessionID: sessionID, AssistantMessageID: r.msgID}
	var userMsg *Message
	assistant := Message{ID: r.msgID, SessionID: sessionID, Role: RoleAssistant, Status: MessageStreaming,
		ProviderID: target.Provider.ID, Model: target.Model.ID, Parts: []Part{}, CreatedAt: now, UpdatedAt: now}
	retitle := ""
	err = s.db.Tx(ctx, func(rawTx *sql.Tx) error {
		tx := cachedQ{c: s.stmts, tx: rawTx}
		t, root, err := loadTreeMeta(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		pl, err := place(t, t.path(root))
		if err != nil {
			return err
		}
		res.HiddenMessageIDs = pl.Hidden
		var seq int
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?", sessionID).Scan(&seq); err != nil {
			return err
		}
		parent := pl.Parent
		if text != "" || len(atts) > 0 {
			seq++
			m := Message{ID: newID(), SessionID: sessionID, Seq: seq, Role: RoleUser, Status: MessageComplete, ParentID: parent, Parts: []Part{}, CreatedAt: now, UpdatedAt: now}
			if err := insertMessage(ctx, tx, m, pidcheck.Owner{}); err != nil {
				return err
			}
			if err := choose(ctx, tx, sessionID, parent, m.ID); err != nil {
				return err
			}
			if text != "" {
				p := Part{ID: newID(), MessageID: m.ID, Type: PartText, State: PartDone, Text: text, CreatedAt: now, UpdatedAt: now}
				if err := insertPart(ctx, tx, p); err != nil {
					return err
				}
				m.Parts = append(m.Parts, p)
			}
			if err := s.storeAttachments(ctx, tx, &m, atts, now); err != nil {
				return err
			}
			m.SiblingIDs = versions(t.siblings(parent), m.ID)
			userMsg = &m
			res.UserMessageID = m.ID
			parent = m.ID
		}
		seq++
		assistant.Seq, assistant.ParentID = seq, parent
		if userMsg == nil {
			assistant.SiblingIDs = versions(t.siblings(parent), assistant.ID)
		}
		if err := insertMessage(ctx, tx, assistant, s.owner); err != nil {
			return err
		}
		if err := choose(ctx, tx, sessionID, parent, assistant.ID); err != nil {
			return err
		}
		if sess.Title == "" && text != "" {
			retitle = titleFrom(text)
		} else if sess.Title == "" && len(atts) > 0 {
			retitle = titleFrom(atts[0].Name)
		}
		_, err = tx.ExecContext(ctx, "UPDATE sessions SET updated_at = ?, title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?", now, retitle, sessionID)
		return err
	})
	if err != nil {
		release()
		var ae *apperr.Error
		if errors.As(err, &ae) {
			return SendResult{}, ae
		}
		return SendResult{}, apperr.Wrap(err, apperr.Internal, "store message")
	}
	if retitle != "" {
		r.sess.Title = retitle
	}
	r.sess.UpdatedAt, r.sess.ActiveAt = now, now
	r.meta = assistant
	r.meta.Parts = nil
	history, files, err := s.history(ctx, sessionID, r.msgID)
	if err != nil {
		release()
		return SendResult{}, err
	}
	r.files = files

	r.mu.Lock()
	if len(res.HiddenMessageIDs) > 0 {
		r.publish(EventMessagesHidden, MessagesHidden{SessionID: sessionID, MessageIDs: res.HiddenMessageIDs})
	}
	if userMsg != nil {
		r.publish(EventMessageAppended, *userMsg)
	}
	r.publish(EventMessageAppended, assistant)
	if retitle != "" {
		r.publish(EventSessionUpdated, r.sessionView())
	}
	r.publishState()
	r.mu.Unlock()

	go r.loop(target, history)
	return res, nil
}

// versions is the siblings of a new message with it last; nil when it is the only one.
func versions(before []string, id string) []string {
	if len(before) == 0 {
		return nil
	}
	return append(slices.Clone(before), id)
}

// insertMessage stores a message; owner is the process streaming it (zero when none does).
func insertMessage(ctx context.Context, q querier, m Message, owner pidcheck.Owner) error {
	_, err := q.ExecContext(ctx, "INSERT INTO messages(id, session_id, seq, role, status, provider_id, model, owner_pid, owner_start, created_at, updated_at, parent_id) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		m.ID, m.SessionID, m.Seq, m.Role, m.Status, m.ProviderID, m.Model, owner.PID, owner.Start, m.CreatedAt, m.UpdatedAt, nullString(m.ParentID))
	return err
}

// history is the conversation before message `before` on the chosen path, as the model
// sees it (other branches are never sent), with the documents in it that the model reads
// through the file tools.
func (s *Service) history(ctx context.Context, sessionID, before string) ([]llm.Message, []Attachment, error) {
	var root string
	var limit int
	if err := s.q.QueryRowContext(ctx, "SELECT chosen_root_id, context_messages FROM sessions WHERE id = ?", sessionID).Scan(&root, &limit); err != nil {
		return nil, nil, apperr.Wrap(err, apperr.Internal, "read session")
	}
	msgs, err := loadMessages(ctx, s.q, sessionID)
	if err != nil {
		return nil, nil, err
	}
	var prior []Message
	for _, m := range Path(msgs, root) {
		if m.ID == before {
			break
		}
		prior = append(prior, m)
	}
	prior = lastMessages(prior, limit)
	return buildHistory(ctx, prior, s.cfg.Attachments), notInlined(prior), nil
}

// lastMessages keeps the question (the last message) and the limit messages before it;
// limit 0 keeps everything.
func lastMessages(prior []Message, limit int) []Message {
	if limit <= 0 || len(prior) <= limit+1 {
		return prior
	}
	return prior[len(prior)-limit-1:]
}

// loop is the agent loop: call the model, run the tool calls it made, feed the results
// back, until it answers without tools, fails, is stopped or hits the round limit.
func (r *run) loop(target llm.Target, history []llm.Message) {
	stopTicker := make(chan struct{})
	go r.ticker(stopTicker)
	defer func() {
		close(stopTicker)
		r.cancel()
		close(r.done)
	}()
	ctx := r.ctx
	// The limits are read once per answer from settings, whose specs hold the defaults.
	maxRounds := r.svc.cfg.Settings.Int(ctx, "chat.maxToolRounds")
	system := r.sess.SystemPrompt
	if system == "" {
		system = r.svc.cfg.Settings.String(ctx, "chat.defaultSystemPrompt")
	}
	scope := tools.Scope{SessionID: r.sess.ID, SessionKind: r.sess.Kind, Toolsets: r.sess.Toolsets,
		Model: tools.ModelCaps{SupportsTools: target.Model.SupportsTools, Vision: target.Model.Vision,
			Reasoning: target.Model.Reasoning, ContextWindow: target.Model.ContextWindow},
		FoldAll: r.svc.cfg.Settings.Bool(ctx, "chat.foldAllTools"), Conversation: latestUserText(history, conversationChars)}
	actAs := r.sess.ID
	if c := r.child; c != nil {
		maxRounds = cmp.Or(c.MaxRounds, maxRounds)
		actAs = c.ActAs
		scope.SessionID, scope.Allow, scope.Agent = c.ActAs, c.Allow, &tools.Agent{Name: c.Agent, SessionID: r.sess.ID}
	}
	fileNote := r.offerFiles(&scope)
	runner := r.svc.toolRunner()
	costNoted := false

	startRound := 0
	if r.resume != nil {
		var ok bool
		if history, ok = r.replay(ctx, runner, scope, history); !ok {
			return
		}
		startRound = 1
	}
	for round := startRound; ; round++ {
		r.mu.Lock()
		r.round = round
		r.mu.Unlock()
		var sel tools.Selection
		if runner != nil && target.Model.SupportsTools {
			var err error
			sel, err = runner.Select(ctx, scope)
			if err != nil {
				r.end(apperr.From(err))
				return
			}
		}
		if !costNoted {
			costNoted = r.noteToolCost(ctx, scope, sel)
		}
		history = r.deliverNotices(ctx, history)
		req := r.request(ctx, target)
		if len(sel.Tools) == 0 {
			fileNote = ""
		}
		if sys := joinNonEmpty("\n\n", system, sel.Instructions, fileNote); sys != "" {
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleSystem, Content: sys})
		}
		req.Messages = append(req.Messages, visionHistory(history, target.Model.Vision, loadImage)...)
		for _, d := range sel.Tools {
			req.Tools = append(req.Tools, llm.ToolDef{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
		}
		res, err := target.Client.Stream(ctx, req, r.handler())
		r.endRound(res)
		if err != nil {
			r.end(apperr.From(err))
			return
		}
		if len(res.ToolCalls) == 0 {
			r.end(nil)
			return
		}
		if e := r.overBudget(round, maxRounds); e != nil {
			r.mu.Lock()
			for _, c := range res.ToolCalls {
				r.recordLocked(tools.Stopped(c.ID, c.Name, e))
			}
			r.mu.Unlock()
			r.end(e)
			return
		}
		calls := make([]tools.Call, 0, len(res.ToolCalls))
		for _, c := range res.ToolCalls {
			calls = append(calls, tools.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments, SessionID: actAs, MessageID: r.msgID, Scope: scope})
		}
		outcomes := r.runTools(ctx, runner, calls)
		if ctx.Err() != nil {
			r.end(apperr.Wrap(context.Canceled, apperr.Canceled, "stopped"))
			return
		}
		history = append(history, llm.Message{Role: llm.RoleAssistant, Content: res.Text, ToolCalls: res.ToolCalls, Reasoning: res.Reasoning})
		for _, o := range outcomes {
			history = append(history, llm.Message{Role: llm.RoleTool, ToolCallID: o.CallID, Content: modelContent(o.Status, o.Content, o.Err),
				Images: toolImages(o.Images)})
		}
	}
}

// noteToolCost writes a tool-cost status part before the request is sent when its tool
// definitions take more of the model's window than chat.toolContextShare allows, so the
// user sees why answers are short or fail, and how to fold more or turn servers off. It
// reports whether it wrote one (once per answer is enough).
func (r *run) noteToolCost(ctx context.Context, scope tools.Scope, sel tools.Selection) bool {
	window, known := scope.Model.ContextWindow, scope.Model.ContextWindow > 0
	if !known {
		window = tools.UnknownContextWindow
	}
	limit := r.svc.cfg.Settings.Int(ctx, "chat.toolContextShare")
	if limit <= 0 || sel.ToolTokens*100 <= window*limit {
		return false
	}
	cost := &ToolCost{Tokens: sel.ToolTokens, Window: window, WindowKnown: known, Percent: sel.ToolTokens * 100 / window,
		Limit: limit, Tools: len(sel.Tools), Folded: len(sel.Deferred), FoldAll: scope.FoldAll}
	r.mu.Lock()
	r.appendPart(Part{Type: PartStatus, Status: &StatusInfo{Kind: StatusToolCost, ToolCost: cost}}, "", "")
	r.mu.Unlock()
	return true
}

// deliverNotices tells the model what it has not been told yet (Config.Notices): each
// notice becomes a status part of this round, which the window shows and later requests
// rebuild (assistantTurns), and a user-role message in the history (withNotices).
func (r *run) deliverNotices(ctx context.Context, history []llm.Message) []llm.Message {
	src := r.svc.cfg.Notices
	if src == nil {
		return history
	}
	pending := src.Pending(ctx, r.sess.ID)
	if len(pending) == 0 {
		return history
	}
	ids := make([]string, 0, len(pending))
	texts := make([]string, 0, len(pending))
	r.mu.Lock()
	for _, n := range pending {
		n.Text = r.svc.cfg.Redact.String(n.Text)
		n.Title = r.svc.cfg.Redact.String(n.Title)
		r.appendPart(Part{Type: PartStatus, Status: &StatusInfo{Kind: StatusNotice, Notice: &n}}, "", "")
		texts = append(texts, n.Text)
		ids = append(ids, n.ID)
	}
	r.mu.Unlock()
	src.Delivered(ctx, r.sess.ID, ids)
	return withNotices(history, texts)
}

// request is a round's request before its messages and tools: the model, the session's
// temperature, top-p and answer length, the reasoning choice (the conversation's over the model's) and the stall
// limits from the settings.
func (r *run) request(ctx context.Context, target llm.Target) llm.Request {
	st := r.svc.cfg.Settings
	return llm.Request{Model: target.Model.ID, Temperature: r.sess.Temperature, TopP: r.sess.TopP, MaxTokens: r.sess.MaxTokens,
		Reasoning:        target.Model.ReasoningChoice().Over(r.sess.Reasoning),
		FirstByteTimeout: st.Duration(ctx, "chat.firstByteTimeout"),
		IdleTimeout:      st.Duration(ctx, "chat.streamIdleTimeout")}
}

// replay runs the resumed call as round 0 of this answer and adds it and its result to
// the history; false means the answer ended (stopped).
func (r *run) replay(ctx context.Context, runner ToolRunner, scope tools.Scope, history []llm.Message) ([]llm.Message, bool) {
	c := *r.resume
	c.ID = fmt.Sprintf("%s_resumed_%d", c.ID, time.Now().UnixNano())
	c.SessionID, c.MessageID, c.Scope = r.sess.ID, r.msgID, scope
	r.mu.Lock()
	r.round = 0
	lp := r.appendPart(Part{Type: PartToolCall, State: PartStreaming, Tool: &ToolInfo{CallID: c.ID, Name: c.Name}}, "arguments", "")
	lp.buf = append(lp.buf[:0], c.Arguments...)
	r.finishPart(lp)
	r.calls[c.ID] = lp
	r.mu.Unlock()
	outs := r.runTools(ctx, runner, []tools.Call{c})
	if ctx.Err() != nil {
		r.end(apperr.Wrap(context.Canceled, apperr.Canceled, "stopped"))
		return nil, false
	}
	history = append(history, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: c.ID, Name: c.Name, Arguments: c.Arguments}}})
	for _, o := range outs {
		history = append(history, llm.Message{Role: llm.RoleTool, ToolCallID: o.CallID, Content: modelContent(o.Status, o.Content, o.Err),
			Images: toolImages(o.Images)})
	}
	return history, true
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// handler turns stream deltas into parts.
func (r *run) handler() llm.Handler {
	text := func(kind PartType) func(string) {
		return func(d string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.open != nil && r.open.Type == kind {
				r.stream(r.open, d)
				return
			}
			r.finishPart(r.open)
			r.open = r.appendPart(Part{Type: kind, State: PartStreaming}, "text", d)
		}
	}
	return llm.Handler{
		Text:      text(PartText),
		Reasoning: text(PartReasoning),
		ToolCall: func(c llm.ToolCall, frag string, first bool) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.open != nil {
				r.finishPart(r.open)
				r.open = nil
			}
			lp := r.roundCall[c.Index]
			if lp == nil {
				lp = r.appendPart(Part{Type: PartToolCall, State: PartStreaming, Tool: &ToolInfo{CallID: c.ID, Name: c.Name}}, "arguments", c.Arguments)
				r.roundCall[c.Index] = lp
				return
			}
			if lp.Tool.CallID != c.ID || lp.Tool.Name != c.Name {
				lp.Tool.CallID, lp.Tool.Name = c.ID, c.Name
				r.nameTool(lp.Tool)
				lp.buf = append(lp.buf, frag...)
				r.updated(lp, false)
				return
			}
			r.stream(lp, frag)
		},
		Retry: func(info llm.RetryInfo) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.appendPart(Part{Type: PartStatus, Status: &StatusInfo{Kind: StatusRetry, Error: r.svc.cfg.Redact.Error(info.Err), Attempt: info.Attempt, WaitMs: info.Wait.Milliseconds()}}, "", "")
		},
	}
}

// endRound closes the round's streaming parts with the final content of the stream. Call
// ids a provider reuses across rounds (some local servers number them per answer) get a
// suffix, so every call of a message has its own id; res.ToolCalls is updated in place.
func (r *run) endRound(res llm.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishPart(r.open)
	r.open = nil
	for i := range res.ToolCalls {
		c := &res.ToolCalls[i]
		if _, dup := r.calls[c.ID]; dup || c.ID == "" {
			c.ID = fmt.Sprintf("%s_r%d_%d", c.ID, r.round, i)
		}
	}
	for _, c := range res.ToolCalls {
		lp := r.roundCall[c.Index]
		if lp == nil {
			lp = r.appendPart(Part{Type: PartToolCall, State: PartStreaming, Tool: &ToolInfo{CallID: c.ID, Name: c.Name}}, "arguments", "")
		}
		lp.Tool.CallID, lp.Tool.Name = c.ID, c.Name
		r.nameTool(lp.Tool)
		lp.buf = append(lp.buf[:0], c.Arguments...)
		r.finishPart(lp)
		r.calls[c.ID] = lp
	}
	for _, lp := range r.roundCall {
		r.finishPart(lp) // a call cut off by an error: keep what arrived
	}
	r.roundCall = map[int]*livePart{}
	if res.Usage != nil {
		u := *res.Usage
		if r.usage != nil {
			u = r.usage.Add(u)
		}
		r.usage = &u
	}
	if res.FinishReason != "" {
		r.finish = res.FinishReason
	}
}

// runTools runs one turn's calls through the runner. After Stop, tools get StopGrace to
// return; those that do not are recorded as stopped and left behind.
func (r *run) runTools(ctx context.Context, runner ToolRunner, calls []tools.Call) []tools.Outcome {
	if runner == nil {
		for _, c := range calls {
			r.record(tools.Outcome{CallID: c.ID, Name: c.Name, Status: tools.StatusError,
				Err:     apperr.New(apperr.ToolNotFound, "no tools are available").WithParam("name", c.Name),
				Content: "Error: no tools are available in this session."})
		}
		return r.outcomes(calls)
	}
	obs := &observer{r: r}
	got := make(chan []tools.Outcome, 1)
	go func() { got <- runner.RunBatch(ctx, calls, obs) }()
	var outs []tools.Outcome
	select {
	case outs = <-got:
	case <-ctx.Done():
		timer := time.NewTimer(r.svc.cfg.StopGrace)
		select {
		case outs = <-got:
		case <-timer.C:
			r.mu.Lock()
			r.closed = true
			r.mu.Unlock()
		}
		timer.Stop()
	}
	for _, o := range outs {
		r.record(o)
	}
	for _, c := range calls {
		r.mu.Lock()
		_, done := r.results[c.ID]
		r.mu.Unlock()
		if done {
			continue
		}
		if ctx.Err() != nil {
			r.record(tools.Stopped(c.ID, c.Name, nil))
		} else {
			r.record(tools.Outcome{CallID: c.ID, Name: c.Name, Status: tools.StatusError,
				Err: apperr.New(apperr.ToolFailed, "no outcome for %s", c.Name).WithParam("name", c.Name).WithParam("reason", "the tool did not report a result"), Content: "Error: the tool did not report a result."})
		}
	}
	return r.outcomes(calls)
}

// outcomes returns the recorded outcomes in call order.
func (r *run) outcomes(calls []tools.Call) []tools.Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]tools.Outcome, 0, len(calls))
	for _, c := range calls {
		out = append(out, r.results[c.ID])
	}
	return out
}

func (r *run) record(o tools.Outcome) {
	r.mu.Lock()
	_, dup := r.results[o.CallID]
	r.mu.Unlock()
	if dup {
		return // the observer recorded it as it finished
	}
	o = r.svc.redactOutcome(o) // outside the lock: a large result takes a moment
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recordLocked(o)
}

// recordLocked appends the end part of a call once; later reports of the same call are
// ignored. What a tool reported comes through record or the observer, which redact it
// first; the outcomes made here carry no secrets.
func (r *run) recordLocked(o tools.Outcome) {
	if _, dup := r.results[o.CallID]; dup || o.CallID == "" {
		return
	}
	if o.Status == "" {
		o.Status = tools.StatusError
	}
	if o.Name == "" {
		if lp := r.calls[o.CallID]; lp != nil {
			o.Name = lp.Tool.Name
		}
	}
	o.Content = modelContent(o.Status, o.Content, o.Err)
	r.results[o.CallID] = o
	delete(r.approvals, o.CallID)
	r.appendPart(Part{Type: PartType(o.Status), Tool: &ToolInfo{CallID: o.CallID, Name: o.Name, Content: o.Content, Display: o.Display,
		Error: o.Err, SpillPath: o.SpillPath, Images: o.Images, Size: o.Size, DurationMs: o.Duration.Milliseconds()}}, "", "")
}

// redactOutcome cleans known secrets out of what a tool reported: an MCP server's error
// or a result may echo a token, and the outcome goes to SQLite, every window and the model.
func (s *Service) redactOutcome(o tools.Outcome) tools.Outcome {
	red := s.cfg.Redact
	if red == nil {
		return o
	}
	o.Err = red.Error(o.Err)
	o.Content = red.String(o.Content)
	if len(o.Display) > 0 {
		o.Display = red.JSON(o.Display)
	}
	return o
}

// modelContent is the text the model reads for a call's end: never empty.
func modelContent(status tools.Status, content string, err *apperr.Error) string {
	if strings.TrimSpace(content) != "" {
		return content
	}
	switch {
	case status == tools.StatusStopped:
		return "The tool call was stopped before it finished."
	case err != nil:
		return "Error: " + err.Message
	case status == tools.StatusError:
		return "Error: the tool failed without a message."
	}
	return "(no output)"
}

// end finishes the answer: open parts are closed, calls without an end get tool-stopped,
// the status is stored and the session returns to idle. A Canceled error means Stop.
func (r *run) end(e *apperr.Error) {
	e = r.svc.cfg.Redact.Error(e) // a provider's error may echo the key: cleaned before it is stored or published
	status := MessageComplete
	stopped := e != nil && (e.Code == apperr.Canceled || errors.Is(e, context.Canceled)) && r.ctx.Err() != nil
	switch {
	case stopped:
		status, e = MessageStopped, nil
	case e != nil:
		status = MessageError
	}
	pctx, pcancel := context.WithTimeout(context.WithoutCancel(r.ctx), 5*time.Second) // a stopped answer is priced too
	cost := r.svc.costOf(pctx, r.meta.ProviderID, r.meta.Model, r.usage, map[string]*llm.ModelPrice{})
	pcancel()
	r.mu.Lock()
	r.finishPart(r.open)
	r.open = nil
	for _, lp := range r.parts {
		if lp.Type == PartToolCall {
			r.finishPart(lp)
			if _, ok := r.results[lp.Tool.CallID]; !ok {
				r.recordLocked(tools.Stopped(lp.Tool.CallID, lp.Tool.Name, nil))
			}
		}
	}
	if e == nil && r.writeErr != nil {
		status, e = MessageError, apperr.Wrap(r.writeErr, apperr.Internal, "saving the answer failed")
	}
	if e != nil {
		r.appendPart(Part{Type: PartStatus, Status: &StatusInfo{Kind: StatusError, Error: e}}, "", "")
	}
	now := time.Now().UnixMilli()
	var usageJSON, errJSON any
	if r.usage != nil {
		b, _ := json.Marshal(r.usage)
		usageJSON = string(b)
	}
	if e != nil {
		b, _ := json.Marshal(e)
		errJSON = string(b)
	}
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.svc.q.ExecContext(wctx, "UPDATE messages SET status = ?, finish_reason = ?, usage = ?, error = ?, owner_pid = 0, owner_start = 0, updated_at = ? WHERE id = ?",
		status, r.finish, usageJSON, errJSON, now, r.msgID); err != nil {
		r.svc.log.Warn("chat: store message end", "message", r.msgID, "err", err)
	}
	_, _ = r.svc.q.ExecContext(wctx, "UPDATE sessions SET updated_at = ? WHERE id = ?", now, r.sess.ID)
	r.sess.UpdatedAt = now
	r.meta.Status, r.meta.FinishReason, r.meta.Usage, r.meta.Cost, r.meta.Error, r.meta.UpdatedAt = status, r.finish, r.usage, cost, e, now
	r.publish(EventMessageUpdated, r.meta)
	r.approvals = map[string]bool{}
	r.closed = true
	r.mu.Unlock()

	r.svc.mu.Lock()
	if r.svc.runs[r.sess.ID] == r {
		delete(r.svc.runs, r.sess.ID)
	}
	r.svc.mu.Unlock()
	if r.parent != nil {
		r.parent.setChildWaiting(r, 0)
	}
	r.mu.Lock()
	r.publish(EventSessionState, StateChange{SessionID: r.sess.ID, State: StateIdle, MessageID: r.msgID})
	sess := r.sess
	sess.State = StateIdle
	r.svc.bus.Publish(events.TopicSessions, EventSessionsUpserted, sess)
	r.mu.Unlock()
}

// conversationChars caps the user text a scope carries for toolsets that rank what they
// offer by the conversation: the latest messages say what it is about now.
const conversationChars = 4000

// latestUserText is the text of the latest user messages, newest first, up to max bytes.
func latestUserText(history []llm.Message, max int) string {
	var b strings.Builder
	for i := len(history) - 1; i >= 0 && b.Len() < max; i-- {
		if history[i].Role != llm.RoleUser || history[i].Content == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(history[i].Content)
	}
	s := b.String()
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "")
	}
	return s
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/cairn-app/cairn/backend/agents"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/elicit"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/termtext"
	"github.com/cairn-app/cairn/backend/tools"
)

const chatUsage = `usage: cairn chat [--session ID | --assistant NAME] [--provider P --model M] [--task] [--system TEXT] [--attach FILE]... [--json] [--approve ask|allow|deny] PROMPT
  The answer streams to stdout; reasoning and tool calls go to stderr.
  --assistant starts the conversation from an assistant (its id or name): its instructions,
  model, parameters, toolsets, knowledge bases and skills; --provider, --model and --system
  change what it set.
  --attach adds a file or image to the message (repeatable); a file that cannot be read is
  named on stderr and the message goes without it.
  --json prints every session event as one JSON line instead.
  Without PROMPT the prompt is read from stdin. Ctrl-C stops the answer (what arrived is kept).`

func runChat(ctx context.Context, env *Env, args []string) error {
	// The answer's printer and the approval prompt both write to stderr from their own
	// goroutines: one lock keeps their lines whole.
	shared := *env
	shared.Stderr = &lockedWriter{w: env.Stderr}
	env = &shared
	f := newFlags(env, "chat")
	sessionID := f.String("session", "", "continue this session")
	provider := f.String("provider", "", "provider name or id (default: the session's, or the last used)")
	model := f.String("model", "", "model id (default: the provider's default)")
	task := f.Bool("task", false, "create a task session (sandbox tools)")
	system := f.String("system", "", "system prompt of a new session")
	assistant := f.String("assistant", "", "start the session from this assistant (id or name)")
	asJSON := f.Bool("json", false, "print events as JSON lines")
	approve := f.String("approve", approval.ApproveAsk, "tool calls that need approval: ask (on the terminal), allow or deny")
	var attach repeated
	f.Var(&attach, "attach", "a file or image to attach to the message (repeatable)")
	f.Usage = func() { fmt.Fprintln(env.Stderr, chatUsage) }
	pos, err := parseInterspersed(f, args)
	if err != nil {
		return flagErr(err)
	}
	prompt := strings.Join(pos, " ")
	if strings.TrimSpace(prompt) == "" || prompt == "-" {
		if st, err := os.Stdin.Stat(); env.Stdin == os.Stdin && err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return usageErr("%s", chatUsage)
		}
		b, err := io.ReadAll(io.LimitReader(env.Stdin, 4<<20))
		if err != nil {
			return err
		}
		prompt = strings.TrimRight(string(b), "\r\n")
	}
	if strings.TrimSpace(prompt) == "" {
		return usageErr("%s", chatUsage)
	}
	if *assistant != "" && (*sessionID != "" || *task) {
		return usageErr("--assistant starts a new chat session: it goes with neither --session nor --task")
	}
	decider, err := approval.NewTerminalDecider(*approve, env.Stdin, env.Stderr)
	if err != nil {
		return err
	}
	decider.Width = env.width()
	cn, err := env.connect(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	b := cn.chat()

	providerID := ""
	if *provider != "" {
		if providerID, err = b.ProviderID(ctx, *provider); err != nil {
			return err
		}
	}
	var sess chat.Session
	created := false
	var undo *chat.SessionPatch // puts back a given session's provider and model
	if *sessionID != "" {
		snap, err := b.GetSession(ctx, *sessionID)
		if err != nil {
			return err
		}
		sess = snap.Session
		var patch chat.SessionPatch
		if providerID != "" {
			patch.ProviderID = &providerID
		}
		if *model != "" {
			patch.Model = model
		}
		if patch.ProviderID != nil || patch.Model != nil {
			undo = &chat.SessionPatch{ProviderID: &snap.Session.ProviderID, Model: &snap.Session.Model}
			if sess, err = b.UpdateSession(ctx, sess.ID, patch); err != nil {
				return err
			}
		}
	} else if *assistant != "" {
		if sess, err = startFromAssistant(ctx, env, b, *assistant, providerID, *model, *system); err != nil {
			return err
		}
		created = true
	} else {
		in := chat.SessionInput{ProviderID: providerID, Model: *model, SystemPrompt: *system}
		if *task {
			in.Kind = chat.KindTask
		}
		if sess, err = b.CreateSession(ctx, in); err != nil {
			return err
		}
		created = true
	}

	// Approvals of this session are answered on the terminal (or by --approve) while the
	// answer streams; other windows may still decide first.
	attendCtx, stopAttending := context.WithCancel(ctx)
	defer stopAttending()
	if err := b.Attend(attendCtx, sess.ID, decider, "terminal", env.Stderr); err != nil {
		undoFailedSend(b, sess.ID, created, undo)
		return err
	}
	// So are the forms its MCP servers ask the user to fill in (on the same input).
	asker := elicit.NewTerminalAsker(decider, env.Stderr, decider.Mode() == approval.ApproveAsk)
	if err := b.AttendElicitations(attendCtx, sess.ID, asker, "terminal", env.Stderr); err != nil {
		undoFailedSend(b, sess.ID, created, undo)
		return err
	}

	// The stream outlives Ctrl-C (ctx), so the stop's last events still arrive; it ends
	// with the command.
	sub, err := b.Subscribe(context.WithoutCancel(ctx))
	if err != nil {
		undoFailedSend(b, sess.ID, created, undo)
		return err
	}
	defer sub.Close()
	files, err := attachFiles(ctx, env, b, attach)
	if err != nil {
		undoFailedSend(b, sess.ID, created, undo)
		return err
	}
	res, err := b.SendMessage(ctx, sess.ID, prompt, files)
	if err != nil {
		undoFailedSend(b, sess.ID, created, undo)
		return err
	}
	fmt.Fprintf(env.Stderr, "session %s\n", sess.ID)
	out := &chatPrinter{env: env, json: *asJSON, msgID: res.AssistantMessageID, printed: map[string]int{}, kinds: map[string]chat.PartType{},
		shownCalls: map[string]bool{}, progress: map[string]tools.Progress{}, streams: map[string]*termtext.Stream{}}
	topic := events.SessionTopic(sess.ID)
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				return apperr.New(apperr.OwnerGone, "the event stream closed before the answer ended")
			}
			if ev.Topic != topic {
				continue
			}
			if done, err := out.event(ev); done || err != nil {
				return err
			}
		case <-ctx.Done():
			stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := b.Stop(stopCtx, sess.ID)
			cancel()
			// Print what the stop flushed, then report the interruption. The owner's events
			// come over a socket: they may arrive a moment after Stop returned.
			flushed := time.NewTimer(time.Second)
			defer flushed.Stop()
			for {
				select {
				case ev, ok := <-sub.Events():
					if !ok {
						return stopErr(err)
					}
					if ev.Topic == topic {
						if done, _ := out.event(ev); done {
							return stopErr(err)
						}
					}
				case <-flushed.C:
					return stopErr(err)
				}
			}
		}
	}
}

// startFromAssistant starts a session from an assistant, names on stderr what of it is
// gone, and applies the provider, model and system prompt the command line gave.
func startFromAssistant(ctx context.Context, env *Env, b chatBackend, ref, providerID, model, system string) (chat.Session, error) {
	st, err := b.StartAssistant(ctx, ref)
	if err != nil {
		return chat.Session{}, err
	}
	for _, k := range st.MissingKBs {
		fmt.Fprintf(env.Stderr, "the assistant's knowledge base %s no longer exists; the session goes without it\n", termtext.Line(k))
	}
	for _, k := range st.MissingSkills {
		fmt.Fprintf(env.Stderr, "the assistant's skill %s no longer exists; the session goes without it\n", termtext.Line(k))
	}
	var patch chat.SessionPatch
	if providerID != "" {
		patch.ProviderID, patch.Model = &providerID, &model
	} else if model != "" {
		patch.Model = &model
	}
	if system != "" {
		patch.SystemPrompt = &system
	}
	if patch.ProviderID == nil && patch.Model == nil && patch.SystemPrompt == nil {
		snap, err := b.GetSession(ctx, st.SessionID)
		return snap.Session, err
	}
	sess, err := b.UpdateSession(ctx, st.SessionID, patch)
	if err != nil {
		_ = b.DeleteSession(context.WithoutCancel(ctx), st.SessionID)
	}
	return sess, err
}

// attachFiles stores each file of --attach (paths from the terminal's directory). A file
// that cannot be read as an attachment is named on stderr with its error and sent as left
// out, so the message says so; a file that cannot be opened at all ends the command.
func attachFiles(ctx context.Context, env *Env, b chatBackend, paths []string) ([]chat.AttachmentInput, error) {
	var out []chat.AttachmentInput
	for _, p := range paths {
		path, err := filepath.Abs(p)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.InvalidArgument, "attach %s", p).WithParam("name", p)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.InvalidArgument, "attach %s", p).WithParam("name", p)
		}
		name := filepath.Base(path)
		st, _ := f.Stat()
		att, err := b.Attach(ctx, name, f)
		f.Close()
		var ae *apperr.Error
		switch {
		case errors.As(err, &ae) && ae.Code != apperr.Internal && ae.Code != apperr.Canceled:
			fmt.Fprintf(env.Stderr, "not attached: %s: %s\n", termtext.Line(name), termtext.Line(ae.Message))
			var size int64
			if st != nil {
				size = st.Size()
			}
			out = append(out, chat.AttachmentInput{Name: name, Size: size, Error: ae})
		case err != nil:
			return nil, err
		default:
			out = append(out, chat.AttachmentInput{ID: att.ID, Name: name})
		}
	}
	return out, nil
}

// flagErr turns a flag parse error (already printed with the usage) into exit code 2.
func flagErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return exitError{code: 2}
}

func stopErr(err error) error {
	if err != nil {
		return err
	}
	return exitError{code: 130}
}

// chatPrinter renders session events on a terminal (or as JSON lines). Everything the
// model or a tool wrote goes through termtext: an answer cannot write the clipboard, set
// the title or clear the screen, and a [tool] line shows its control characters.
type chatPrinter struct {
	env        *Env
	json       bool
	msgID      string
	printed    map[string]int // bytes of a text part already written
	kinds      map[string]chat.PartType
	shownCalls map[string]bool
	progress   map[string]tools.Progress   // per call: the last progress printed
	streams    map[string]*termtext.Stream // per text part: a character split across deltas waits
	newline    bool                        // the last byte written to stdout was not a newline
}

// event handles one event; done is true when the answer ended.
func (p *chatPrinter) event(ev events.Event) (bool, error) {
	if p.json {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(p.env.Stdout, "%s\n", termtext.JSON(b))
	}
	switch ev.Type {
	case chat.EventPartAppended, chat.EventPartUpdated:
		var part chat.Part
		if err := json.Unmarshal(ev.Data, &part); err != nil || part.MessageID != p.msgID {
			return false, nil
		}
		p.part(part)
	case chat.EventPartDelta:
		var d chat.PartDelta
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.MessageID != p.msgID || p.kinds[d.PartID] != chat.PartText {
			return false, nil
		}
		p.text(d.PartID, "", d.Text, true)
	case chat.EventMessageUpdated:
		var m chat.Message
		if err := json.Unmarshal(ev.Data, &m); err != nil || m.ID != p.msgID || m.Status == chat.MessageStreaming {
			return false, nil
		}
		p.flush()
		if !p.json && p.newline {
			fmt.Fprintln(p.env.Stdout)
		}
		switch m.Status {
		case chat.MessageError:
			if m.Error != nil {
				return true, m.Error
			}
			return true, apperr.New(apperr.Unknown, "the answer failed")
		case chat.MessageStopped:
			if !p.json {
				fmt.Fprintln(p.env.Stderr, "[stopped; what arrived is kept]")
			}
			return true, exitError{code: 130}
		}
		if !p.json && m.Usage != nil {
			fmt.Fprintf(p.env.Stderr, "[%s]\n", usageText(m.Usage, m.Cost))
		}
		return true, nil
	}
	return false, nil
}

func (p *chatPrinter) part(part chat.Part) {
	p.kinds[part.ID] = part.Type
	if p.json {
		return
	}
	switch part.Type {
	case chat.PartText:
		p.text(part.ID, part.Text, "", false)
	case chat.PartReasoning:
		if part.State == chat.PartDone {
			fmt.Fprintf(p.env.Stderr, "[reasoning] %s\n", termtext.Summary(part.Text, 400))
		}
	case chat.PartToolCall:
		if part.State == chat.PartDone && part.Tool != nil && !p.shownCalls[part.Tool.CallID] {
			p.shownCalls[part.Tool.CallID] = true
			fmt.Fprintf(p.env.Stderr, "[tool] %s %s\n", termtext.Line(part.Tool.Name), termtext.Summary(part.Tool.Arguments, 200))
		}
		if part.Tool != nil && part.Tool.Progress != nil {
			p.toolProgress(part.Tool.Name, *part.Tool.Progress)
		}
	case chat.PartToolResult, chat.PartToolError, chat.PartToolStopped:
		if part.Tool != nil {
			fmt.Fprintf(p.env.Stderr, "[%s] %s: %s\n", part.Type, termtext.Line(part.Tool.Name), termtext.Summary(part.Tool.Content, 200))
		}
	case chat.PartStatus:
		if part.Status != nil && part.Status.Kind == chat.StatusRetry {
			fmt.Fprintf(p.env.Stderr, "[rate limited, retrying in %.1f s]\n", float64(part.Status.WaitMs)/1000)
		}
		if c := toolCostOf(part); c != nil {
			fmt.Fprintf(p.env.Stderr, "[tool definitions take %d%% of the %d-token context window (%d tokens, more than %d%%): "+
				"fold every MCP tool with `cairn settings set chat.foldAllTools true`, or turn servers off with `cairn mcp disable`]\n",
				c.Percent, c.Window, c.Tokens, c.Limit)
		}
		if part.Status != nil && part.Status.Kind == chat.StatusNotice && part.Status.Notice != nil {
			fmt.Fprintf(p.env.Stderr, "[notice] %s\n", termtext.Line(part.Status.Notice.Text))
		}
	}
}

// toolProgress prints a running call's progress when it changed: the part updates that
// carry it (at most 20 a second) also come for other reasons.
func (p *chatPrinter) toolProgress(name string, pr tools.Progress) {
	if last, ok := p.progress[pr.CallID]; ok && last == pr {
		return
	}
	p.progress[pr.CallID] = pr
	if pr.Kind == agents.ProgressKind {
		// A sub-agent's steps, indented under the call that started it.
		fmt.Fprintf(p.env.Stderr, "    %s\n", termtext.Line(pr.Message))
		return
	}
	fmt.Fprintf(p.env.Stderr, "[progress] %s %s\n", termtext.Line(name), progressText(pr))
}

// progressText is "3/10 message", "3 message" without a total, or the message alone.
func progressText(pr tools.Progress) string {
	var s string
	switch {
	case pr.Total > 0:
		s = fmt.Sprintf("%g/%g", pr.Progress, pr.Total)
	case pr.Progress > 0:
		s = fmt.Sprintf("%g", pr.Progress)
	}
	if pr.Message != "" {
		s = strings.TrimSpace(s + " " + termtext.Line(pr.Message))
	}
	return s
}

// text writes what of a text part was not written yet: a delta, or the tail of the full
// text a part event carries.
func (p *chatPrinter) text(id, full, delta string, isDelta bool) {
	if p.json {
		return
	}
	var chunk string
	if isDelta {
		chunk = delta
	} else if n := p.printed[id]; len(full) > n {
		chunk = full[n:]
	}
	if chunk == "" {
		return
	}
	p.printed[id] += len(chunk)
	st := p.streams[id]
	if st == nil {
		st = &termtext.Stream{}
		p.streams[id] = st
	}
	p.write(st.Text(chunk))
}

// flush writes what the text parts held back (bytes that never became a character).
func (p *chatPrinter) flush() {
	for _, st := range p.streams {
		p.write(st.Flush())
	}
}

func (p *chatPrinter) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(p.env.Stdout, s)
	if f, ok := p.env.Stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	p.newline = !strings.HasSuffix(s, "\n")
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// undoFailedSend leaves things as they were when the message could not even start (no
// model, no key, …): a session this command created is deleted if nothing was stored in
// it, and a given session gets its provider and model back (undo, when it switched them).
func undoFailedSend(c chatBackend, id string, created bool, undo *chat.SessionPatch) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if created {
		if snap, err := c.GetSession(ctx, id); err == nil && len(snap.Messages) == 0 {
			_ = c.DeleteSession(ctx, id)
		}
	}
	if undo != nil {
		_, _ = c.UpdateSession(ctx, id, *undo)
	}
}

// toolCostOf is a tool-cost notice's figures, nil for any other part.
func toolCostOf(part chat.Part) *chat.ToolCost {
	if part.Status == nil || part.Status.Kind != chat.StatusToolCost {
		return nil
	}
	return part.Status.ToolCost
}

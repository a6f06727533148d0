package cli

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/assistants"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/elicit"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/redact"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/tools"
)

// ownerWait is how long a command waits for an owner that holds the data directory but
// does not answer yet (it is opening the database).
const ownerWait = 15 * time.Second

// conn is how a command reaches the data directory: through the running owner (remote),
// or by opening it itself (local, holding the directory's lock shared for its run).
type conn struct {
	dir    string
	remote *owner.Client
	local  *service.Services
}

func (c *conn) Close() {
	if c.remote != nil {
		c.remote.Close()
	}
	if c.local != nil {
		c.local.Close()
	}
}

// connect finds the data directory's owner and works through it; with none it opens the
// directory itself.
func (e *Env) connect(ctx context.Context) (*conn, error) {
	dir, err := service.ResolveDataDir(e.DataDir)
	if err != nil {
		return nil, err
	}
	client, lock, err := owner.Attach(ctx, dir, ownerWait)
	if err != nil {
		return nil, err
	}
	if client != nil {
		return &conn{dir: dir, remote: client}, nil
	}
	s, err := service.Open(ctx, service.Options{DataDir: dir})
	if err != nil {
		lock.Close()
		return nil, err
	}
	s.OnClose(lock.Close)
	return &conn{dir: dir, local: s}, nil
}

// eventSource is a subscription to a bus: this process's or the owner's.
type eventSource interface {
	Events() <-chan events.Event
	Dropped() bool
	Close()
}

// chatBackend is what `cairn chat` needs of a backend.
type chatBackend interface {
	ProviderID(ctx context.Context, ref string) (string, error)
	GetSession(ctx context.Context, id string) (chat.Snapshot, error)
	CreateSession(ctx context.Context, in chat.SessionInput) (chat.Session, error)
	UpdateSession(ctx context.Context, id string, patch chat.SessionPatch) (chat.Session, error)
	DeleteSession(ctx context.Context, id string) error
	// StartAssistant creates a session from an assistant (id or name).
	StartAssistant(ctx context.Context, ref string) (assistants.Started, error)
	SendMessage(ctx context.Context, id, text string, files []chat.AttachmentInput) (chat.SendResult, error)
	// Attach stores a file for a message (the owner's store when one runs).
	Attach(ctx context.Context, name string, r io.Reader) (chat.Attachment, error)
	Stop(ctx context.Context, id string) error
	// Subscribe returns once subscribed: nothing done after it is missed.
	Subscribe(ctx context.Context) (eventSource, error)
	// Attend subscribes, then answers the session's approvals with d until ctx ends (in
	// the background): started before the message is sent, it sees every request.
	Attend(ctx context.Context, sessionID string, d approval.Decider, window string, out io.Writer) error
	// AttendElicitations answers the session's MCP forms with a the same way.
	AttendElicitations(ctx context.Context, sessionID string, a *elicit.TerminalAsker, window string, out io.Writer) error
}

func (c *conn) chat() chatBackend {
	if c.remote != nil {
		return remoteChat{c.remote}
	}
	return localChat{c.local}
}

// localChat is chatBackend over this process's own services.
type localChat struct{ s *service.Services }

func (l localChat) ProviderID(ctx context.Context, ref string) (string, error) {
	p, err := l.s.Providers.Get(ctx, ref)
	return p.ID, err
}

func (l localChat) GetSession(ctx context.Context, id string) (chat.Snapshot, error) {
	return l.s.Chat.GetSession(ctx, id)
}

func (l localChat) CreateSession(ctx context.Context, in chat.SessionInput) (chat.Session, error) {
	return l.s.Chat.CreateSession(ctx, in)
}

func (l localChat) UpdateSession(ctx context.Context, id string, p chat.SessionPatch) (chat.Session, error) {
	return l.s.Chat.UpdateSession(ctx, id, p)
}

func (l localChat) DeleteSession(ctx context.Context, id string) error {
	return l.s.Chat.DeleteSession(ctx, id)
}

func (l localChat) StartAssistant(ctx context.Context, ref string) (assistants.Started, error) {
	return l.s.Assistants.Start(ctx, ref)
}

func (l localChat) SendMessage(ctx context.Context, id, text string, files []chat.AttachmentInput) (chat.SendResult, error) {
	return l.s.Chat.Send(ctx, id, text, files)
}

func (l localChat) Attach(ctx context.Context, name string, r io.Reader) (chat.Attachment, error) {
	return l.s.Files.Put(ctx, name, r)
}

func (l localChat) Stop(ctx context.Context, id string) error { return l.s.Chat.Stop(ctx, id) }

func (l localChat) Subscribe(context.Context) (eventSource, error) {
	return busSource{l.s.Bus.Subscribe(1 << 16)}, nil
}

func (l localChat) Attend(ctx context.Context, sessionID string, d approval.Decider, window string, out io.Writer) error {
	sub := l.s.Bus.Subscribe(256)
	go func() {
		defer sub.Close()
		_ = approval.AttendVia(ctx, l.s.Approval.Source(), sub.C, sub.Dropped, sessionID, d, window, out)
	}()
	return nil
}

func (l localChat) AttendElicitations(ctx context.Context, sessionID string, a *elicit.TerminalAsker, window string, out io.Writer) error {
	sub := l.s.Bus.Subscribe(256)
	go func() {
		defer sub.Close()
		_ = elicit.AttendVia(ctx, l.s.Elicit, sub.C, sub.Dropped, sessionID, a, window, out)
	}()
	return nil
}

type busSource struct{ sub *events.Subscription }

func (b busSource) Events() <-chan events.Event { return b.sub.C }
func (b busSource) Dropped() bool               { return b.sub.Dropped() }
func (b busSource) Close()                      { b.sub.Close() }

// settingsBackend is what `cairn settings` needs of a backend.
type settingsBackend interface {
	Snapshot(ctx context.Context) (settings.Snapshot, error)
	Get(ctx context.Context, key string) (any, error)
	Set(ctx context.Context, key string, value any) (settings.Snapshot, error)
}

func (c *conn) settings() settingsBackend {
	if c.remote != nil {
		return remoteSettings{c.remote}
	}
	return c.local.Settings
}

// secretsBackend is what `cairn secrets` needs of a backend.
type secretsBackend interface {
	Snapshot(ctx context.Context) (secrets.Snapshot, error)
	// CheckKnown refuses a name the command does not manage, before a value is asked for.
	CheckKnown(ctx context.Context, name string) error
	SetKnown(ctx context.Context, name, value string) error
	DeleteKnown(ctx context.Context, name string) error
	// Backend names where the values are kept.
	Backend(ctx context.Context) string
}

func (c *conn) secrets() secretsBackend {
	if c.remote != nil {
		return remoteSecrets{c.remote}
	}
	return localSecrets{c.local.Secrets}
}

type localSecrets struct{ *secrets.Store }

func (l localSecrets) CheckKnown(_ context.Context, name string) error {
	return l.Store.CheckKnown(name)
}

func (l localSecrets) Backend(context.Context) string {
	kind, _ := l.Store.Backend()
	return kind
}

// mcpBackend is what `cairn mcp` needs of a backend: *mcp.Manager, or the owner's.
type mcpBackend interface {
	Resolve(idOrName string) (string, error)
	Servers(ctx context.Context) (mcp.Snapshot, error)
	View(ctx context.Context, id string) (mcp.ServerView, error)
	RefreshTools(ctx context.Context, id string) ([]mcp.ToolInfo, error)
	CallTool(ctx context.Context, id, tool string, args json.RawMessage, progress func(tools.Progress)) (tools.Result, error)
	Import(ctx context.Context, data []byte) (mcp.ImportReport, error)
	Export(ctx context.Context, includeSecrets bool) (mcp.Export, error)
	Test(ctx context.Context, in mcp.Server) (mcp.TestReport, error)
	Environment(ctx context.Context, id string) ([]mcp.EnvVar, error)
	SetTrustReadOnlyHints(ctx context.Context, id string, on bool) (mcp.ServerView, error)
	SetEnabled(ctx context.Context, id string, on bool) (mcp.ServerView, error)
	// SetToolEnabled and SetToolApproval are the window's own calls (Settings → MCP), so
	// through an owner they go through the facade.
	SetToolEnabled(ctx context.Context, id, tool string, on bool) (mcp.ServerView, error)
	SetToolApproval(ctx context.Context, id, tool string, a mcp.Approval) (mcp.ServerView, error)
	Delete(ctx context.Context, id string) error
	SignOut(ctx context.Context, id string) (mcp.ServerView, error)
	// Save is the window's own call too (the server form): `cairn mcp add` and `edit`.
	Save(ctx context.Context, in mcp.Server) (mcp.ServerView, error)
	// Resources, prompts (window calls too: the tool card and the composer).
	Resources(ctx context.Context, id string) (mcp.ResourceList, error)
	ReadResource(ctx context.Context, id, uri string) ([]mcp.ResourceContent, error)
	Prompts(ctx context.Context, id string) ([]mcp.PromptInfo, error)
	GetPrompt(ctx context.Context, id, name string, args map[string]string) (mcp.PromptResult, error)
}

func (c *conn) mcp() mcpBackend {
	if c.remote != nil {
		return remoteMCP{c.remote}
	}
	return c.local.MCP
}

// signInBackend is what `cairn mcp login` needs: *mcp.Manager, or the owner's.
type signInBackend interface {
	View(ctx context.Context, id string) (mcp.ServerView, error)
	SignIn(ctx context.Context, id string, openBrowser bool) (mcp.SignInStart, error)
	WaitSignIn(ctx context.Context, id string) error
	CancelSignIn(ctx context.Context, id string) (mcp.ServerView, error)
	RefreshTools(ctx context.Context, id string) ([]mcp.ToolInfo, error)
}

// login signs in to a remote MCP server: through the owner when one runs (the sign-in
// and the tokens are the owner's, so its connection and every window see them at once),
// else on the directory this command opened.
func (c *conn) login(ctx context.Context, env *Env, id string, open bool) error {
	if c.remote != nil {
		return mcpLogin(ctx, env, remoteMCP{c.remote}, id, open)
	}
	return mcpLogin(ctx, env, c.local.MCP, id, open)
}

// providerBackend is what `cairn provider` needs of a backend.
type providerBackend interface {
	Get(ctx context.Context, ref string) (llm.Provider, error)
	List(ctx context.Context) (llm.ProvidersSnapshot, error)
	Save(ctx context.Context, in llm.ProviderInput) (llm.Provider, error)
	FetchModels(ctx context.Context, ref string) (llm.Provider, error)
	Test(ctx context.Context, ref, model string) (llm.TestResult, error)
	Delete(ctx context.Context, ref string) error
	SetPrice(ctx context.Context, ref, model string, p llm.Price) (llm.Provider, error)
	ClearPrice(ctx context.Context, ref, model string) (llm.Provider, error)
	// KeyBackend names where keys are kept.
	KeyBackend(ctx context.Context) string
	// RedactError leaves the known secrets out of a provider's error, which may echo the
	// key.
	RedactError(e *apperr.Error) *apperr.Error
}

func (c *conn) providers() providerBackend {
	if c.remote != nil {
		return remoteProviders{c.remote}
	}
	return localProviders{Service: c.local.Providers, secrets: c.local.Secrets, red: c.local.Redact}
}

type localProviders struct {
	*llm.Service
	secrets *secrets.Store
	red     *redact.Set
}

func (l localProviders) RedactError(e *apperr.Error) *apperr.Error { return l.red.Error(e) }

func (l localProviders) KeyBackend(context.Context) string {
	kind, _ := l.secrets.Backend()
	return kind
}

package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/assistants"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/elicit"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/files"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/oauth"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/tools"
)

// The remote backends call the facade methods a window calls (main.App, by name over the
// owner's control socket), so a command through the owner does what a window does.

// remoteChat is chatBackend through the owner.
type remoteChat struct{ c *owner.Client }

func (r remoteChat) ProviderID(ctx context.Context, ref string) (string, error) {
	p, err := remoteProviders(r).Get(ctx, ref)
	return p.ID, err
}

func (r remoteChat) GetSession(ctx context.Context, id string) (out chat.Snapshot, err error) {
	return out, r.c.Call(ctx, "GetSession", &out, id)
}

func (r remoteChat) CreateSession(ctx context.Context, in chat.SessionInput) (out chat.Session, err error) {
	return out, r.c.Call(ctx, "CreateSession", &out, in)
}

func (r remoteChat) UpdateSession(ctx context.Context, id string, p chat.SessionPatch) (out chat.Session, err error) {
	return out, r.c.Call(ctx, "UpdateSession", &out, id, p)
}

func (r remoteChat) DeleteSession(ctx context.Context, id string) error {
	return r.c.Call(ctx, "DeleteSession", nil, id)
}

func (r remoteChat) StartAssistant(ctx context.Context, ref string) (out assistants.Started, err error) {
	return out, r.c.Call(ctx, "StartAssistant", &out, ref)
}

func (r remoteChat) SendMessage(ctx context.Context, id, text string, files []chat.AttachmentInput) (out chat.SendResult, err error) {
	if files == nil {
		files = []chat.AttachmentInput{}
	}
	return out, r.c.Call(ctx, "SendMessage", &out, id, text, files)
}

// Attach sends the file to the owner in parts, as a window does (a request body is
// bounded), and returns what the owner stored.
func (r remoteChat) Attach(ctx context.Context, name string, src io.Reader) (chat.Attachment, error) {
	buf := make([]byte, attachPart)
	uploadID := ""
	for {
		n, err := io.ReadFull(src, buf)
		last := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !last {
			return chat.Attachment{}, err
		}
		var up files.Upload
		if err := r.c.Call(ctx, "UploadAttachment", &up, name, uploadID, base64.StdEncoding.EncodeToString(buf[:n]), last); err != nil {
			return chat.Attachment{}, err
		}
		uploadID = up.UploadID
		if last {
			if up.Attachment == nil {
				return chat.Attachment{}, fmt.Errorf("the owner stored no attachment for %s", name)
			}
			return *up.Attachment, nil
		}
	}
}

// attachPart is the size of one upload part: its base64 fits a request body.
const attachPart = 4 << 20

func (r remoteChat) Stop(ctx context.Context, id string) error {
	return r.c.Call(ctx, "StopSession", nil, id)
}

func (r remoteChat) Subscribe(ctx context.Context) (eventSource, error) {
	st, err := r.c.Events(ctx, 1<<16)
	if err != nil {
		return nil, err
	}
	return &streamSource{st: st}, nil
}

func (r remoteChat) Attend(ctx context.Context, sessionID string, d approval.Decider, window string, out io.Writer) error {
	st, err := r.c.Events(ctx, 256)
	if err != nil {
		return err
	}
	go func() {
		defer st.Close()
		_ = approval.AttendVia(ctx, remoteApprovals{r.c}, st.C, func() bool { return false }, sessionID, d, window, out)
	}()
	return nil
}

func (r remoteChat) AttendElicitations(ctx context.Context, sessionID string, a *elicit.TerminalAsker, window string, out io.Writer) error {
	st, err := r.c.Events(ctx, 256)
	if err != nil {
		return err
	}
	go func() {
		defer st.Close()
		_ = elicit.AttendVia(ctx, remoteElicit{r.c}, st.C, func() bool { return false }, sessionID, a, window, out)
	}()
	return nil
}

// remoteElicit is elicit.Source through the owner.
type remoteElicit struct{ c *owner.Client }

func (r remoteElicit) Pending(ctx context.Context) (out elicit.Pending, err error) {
	return out, r.c.Call(ctx, "ListPendingElicitations", &out)
}

func (r remoteElicit) Answer(ctx context.Context, id string, action elicit.Action, content map[string]any, window string) (out elicit.Request, err error) {
	return out, r.c.Call(ctx, "AnswerElicitation", &out, id, action, content, window)
}

// streamSource is an eventSource over the owner's event stream; the owner says it
// dropped events with a resync event in the stream.
type streamSource struct{ st *owner.Stream }

func (s *streamSource) Events() <-chan events.Event { return s.st.C }
func (s *streamSource) Dropped() bool               { return false }
func (s *streamSource) Close()                      { s.st.Close() }

// remoteApprovals is approval.Source through the owner.
type remoteApprovals struct{ c *owner.Client }

func (r remoteApprovals) PendingForSession(ctx context.Context, sessionID string) ([]approval.Request, error) {
	var p approval.Pending
	if err := r.c.Call(ctx, "ListSessionApprovals", &p, sessionID); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(p.Requests, func(q approval.Request) bool { return q.Status != approval.StatusPending }), nil
}

func (r remoteApprovals) Current(ctx context.Context, q approval.Request) (approval.Request, error) {
	reqs, err := r.PendingForSession(ctx, q.SessionID)
	if err != nil {
		return approval.Request{}, err
	}
	if i := slices.IndexFunc(reqs, func(x approval.Request) bool { return x.ID == q.ID }); i >= 0 {
		return reqs[i], nil
	}
	return approval.Request{}, apperr.New(apperr.NotFound, "the request is no longer pending")
}

func (r remoteApprovals) Decide(ctx context.Context, id, choice, reason, window string) (out approval.Request, err error) {
	return out, r.c.Call(ctx, "DecideApproval", &out, id, choice, reason, window)
}

// remoteSettings is settingsBackend through the owner.
type remoteSettings struct{ c *owner.Client }

func (r remoteSettings) Snapshot(ctx context.Context) (out settings.Snapshot, err error) {
	return out, r.c.Call(ctx, "GetSettings", &out)
}

func (r remoteSettings) Get(ctx context.Context, key string) (any, error) {
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	v, ok := snap.Values[key]
	if !ok {
		keys := make([]string, 0, len(snap.Specs))
		for _, sp := range snap.Specs {
			keys = append(keys, sp.Key)
		}
		return nil, apperr.New(apperr.SettingUnknown, "unknown setting %s (known: %s)", apperr.Quote(key), strings.Join(keys, ", ")).WithParam("key", apperr.Quote(key))
	}
	return v, nil
}

func (r remoteSettings) Set(ctx context.Context, key string, value any) (out settings.Snapshot, err error) {
	return out, r.c.Call(ctx, "SetSetting", &out, key, value)
}

// remoteSecrets is secretsBackend through the owner: the value goes over the control
// socket, which only this user's processes can reach.
type remoteSecrets struct{ c *owner.Client }

func (r remoteSecrets) Snapshot(ctx context.Context) (out secrets.Snapshot, err error) {
	return out, r.c.Call(ctx, "ListSecrets", &out)
}

func (r remoteSecrets) CheckKnown(ctx context.Context, name string) error {
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return err
	}
	var known []string
	for _, st := range snap.Secrets {
		if st.Known {
			if st.Name == name {
				return nil
			}
			known = append(known, st.Name)
		}
	}
	return apperr.New(apperr.SecretNotKnown, "%q is not a secret Settings or `cairn secrets` manage", name).
		WithParam("name", name).WithParam("known", strings.Join(known, ", "))
}

func (r remoteSecrets) SetKnown(ctx context.Context, name, value string) error {
	return r.c.Call(ctx, "SetSecret", nil, name, value)
}

func (r remoteSecrets) DeleteKnown(ctx context.Context, name string) error {
	return r.c.Call(ctx, "DeleteSecret", nil, name)
}

func (r remoteSecrets) Backend(ctx context.Context) string {
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return "?"
	}
	return snap.Backend
}

// remoteMCP is mcpBackend through the owner: its connections to the servers, so a call
// starts no second server process; its progress comes back as it is reported.
type remoteMCP struct{ c *owner.Client }

func (r remoteMCP) Resolve(idOrName string) (id string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return id, r.c.CallOwner(ctx, "MCPResolve", &id, idOrName)
}

func (r remoteMCP) Servers(ctx context.Context) (out mcp.Snapshot, err error) {
	return out, r.c.CallOwner(ctx, "MCPServers", &out)
}

func (r remoteMCP) View(ctx context.Context, id string) (out mcp.ServerView, err error) {
	return out, r.c.CallOwner(ctx, "MCPView", &out, id)
}

func (r remoteMCP) RefreshTools(ctx context.Context, id string) (out []mcp.ToolInfo, err error) {
	return out, r.c.CallOwner(ctx, "MCPRefreshTools", &out, id)
}

func (r remoteMCP) CallTool(ctx context.Context, id, tool string, args json.RawMessage, progress func(tools.Progress)) (tools.Result, error) {
	return r.callThroughOwner(ctx, id, tool, args, progress)
}

func (r remoteMCP) Import(ctx context.Context, data []byte) (out mcp.ImportReport, err error) {
	return out, r.c.CallOwner(ctx, "MCPImport", &out, data)
}

func (r remoteMCP) Export(ctx context.Context, includeSecrets bool) (out mcp.Export, err error) {
	return out, r.c.CallOwner(ctx, "MCPExport", &out, includeSecrets)
}

func (r remoteMCP) Test(ctx context.Context, in mcp.Server) (out mcp.TestReport, err error) {
	return out, r.c.CallOwner(ctx, "MCPTest", &out, in)
}

func (r remoteMCP) Environment(ctx context.Context, id string) (out []mcp.EnvVar, err error) {
	return out, r.c.CallOwner(ctx, "MCPEnvironment", &out, id)
}

func (r remoteMCP) SetTrustReadOnlyHints(ctx context.Context, id string, on bool) (out mcp.ServerView, err error) {
	return out, r.c.CallOwner(ctx, "MCPSetTrustReadOnlyHints", &out, id, on)
}

func (r remoteMCP) SetEnabled(ctx context.Context, id string, on bool) (out mcp.ServerView, err error) {
	return out, r.c.CallOwner(ctx, "MCPSetEnabled", &out, id, on)
}

func (r remoteMCP) SetToolEnabled(ctx context.Context, id, tool string, on bool) (out mcp.ServerView, err error) {
	return out, r.c.Call(ctx, "SetMCPToolEnabled", &out, id, tool, on)
}

func (r remoteMCP) SetToolApproval(ctx context.Context, id, tool string, a mcp.Approval) (out mcp.ServerView, err error) {
	return out, r.c.Call(ctx, "SetMCPToolApproval", &out, id, tool, a)
}

func (r remoteMCP) Save(ctx context.Context, in mcp.Server) (out mcp.ServerView, err error) {
	return out, r.c.Call(ctx, "SaveMCPServer", &out, in)
}

func (r remoteMCP) Delete(ctx context.Context, id string) error {
	return r.c.CallOwner(ctx, "MCPDelete", nil, id)
}

// SignIn starts the sign-in in the owner, then opens the page here when asked: the
// browser to show it on is this terminal's user's, and the owner may be a `serve` with no
// display.
func (r remoteMCP) SignIn(ctx context.Context, id string, openBrowser bool) (out mcp.SignInStart, err error) {
	if err := r.c.CallOwner(ctx, "MCPSignIn", &out, id); err != nil {
		return out, err
	}
	if openBrowser {
		out.Opened = oauth.SystemBrowser(ctx, out.AuthURL) == nil
	}
	return out, nil
}

func (r remoteMCP) WaitSignIn(ctx context.Context, id string) error {
	return r.c.CallOwner(ctx, "MCPWaitSignIn", nil, id)
}

func (r remoteMCP) CancelSignIn(ctx context.Context, id string) (out mcp.ServerView, err error) {
	return out, r.c.CallOwner(ctx, "MCPCancelSignIn", &out, id)
}

func (r remoteMCP) SignOut(ctx context.Context, id string) (out mcp.ServerView, err error) {
	return out, r.c.CallOwner(ctx, "MCPSignOut", &out, id)
}

// remoteProviders is providerBackend through the owner; a key given goes over the
// control socket, which only this user's processes reach.
type remoteProviders struct{ c *owner.Client }

// Get finds a provider by id, else by name (case-insensitive), as llm.Service.Get does.
func (r remoteProviders) Get(ctx context.Context, ref string) (llm.Provider, error) {
	snap, err := r.List(ctx)
	if err != nil {
		return llm.Provider{}, err
	}
	if i := slices.IndexFunc(snap.Providers, func(p llm.Provider) bool { return p.ID == ref }); i >= 0 {
		return snap.Providers[i], nil
	}
	if i := slices.IndexFunc(snap.Providers, func(p llm.Provider) bool { return strings.EqualFold(p.Name, ref) }); i >= 0 {
		return snap.Providers[i], nil
	}
	return llm.Provider{}, apperr.New(apperr.ProviderNotFound, "no provider %s", apperr.Quote(ref)).WithParam("name", apperr.Quote(ref))
}

func (r remoteProviders) List(ctx context.Context) (out llm.ProvidersSnapshot, err error) {
	return out, r.c.Call(ctx, "ListProviders", &out)
}

func (r remoteProviders) Save(ctx context.Context, in llm.ProviderInput) (out llm.Provider, err error) {
	return out, r.c.Call(ctx, "SaveProvider", &out, in)
}

func (r remoteProviders) FetchModels(ctx context.Context, ref string) (out llm.Provider, err error) {
	return out, r.c.Call(ctx, "FetchModels", &out, ref)
}

func (r remoteProviders) Test(ctx context.Context, ref, model string) (out llm.TestResult, err error) {
	return out, r.c.Call(ctx, "TestProvider", &out, ref, model)
}

func (r remoteProviders) Delete(ctx context.Context, ref string) error {
	return r.c.Call(ctx, "DeleteProvider", nil, ref)
}

// SetPrice and ClearPrice name the provider by id, as the window does.
func (r remoteProviders) SetPrice(ctx context.Context, ref, model string, p llm.Price) (out llm.Provider, err error) {
	pr, err := r.Get(ctx, ref)
	if err != nil {
		return out, err
	}
	return out, r.c.Call(ctx, "SetModelPrice", &out, pr.ID, model, p)
}

func (r remoteProviders) ClearPrice(ctx context.Context, ref, model string) (out llm.Provider, err error) {
	pr, err := r.Get(ctx, ref)
	if err != nil {
		return out, err
	}
	return out, r.c.Call(ctx, "ClearModelPrice", &out, pr.ID, model)
}

func (r remoteProviders) KeyBackend(ctx context.Context) string {
	return remoteSecrets(r).Backend(ctx)
}

// RedactError: the owner's answers are redacted already (server.Config.Redact).
func (r remoteProviders) RedactError(e *apperr.Error) *apperr.Error { return e }

func (r remoteMCP) Resources(ctx context.Context, id string) (out mcp.ResourceList, err error) {
	return out, r.c.Call(ctx, "ListMCPResources", &out, id)
}

func (r remoteMCP) ReadResource(ctx context.Context, id, uri string) (out []mcp.ResourceContent, err error) {
	return out, r.c.Call(ctx, "ReadMCPResource", &out, id, uri)
}

func (r remoteMCP) Prompts(ctx context.Context, id string) (out []mcp.PromptInfo, err error) {
	return out, r.c.Call(ctx, "ListMCPPrompts", &out, id)
}

func (r remoteMCP) GetPrompt(ctx context.Context, id, name string, args map[string]string) (out mcp.PromptResult, err error) {
	return out, r.c.Call(ctx, "GetMCPPrompt", &out, id, name, args)
}

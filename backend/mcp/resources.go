package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources and prompts (MCP resources/* and prompts/*): listed live from the server on
// every call, never cached, because servers change them per session (server-everything
// registers session resources) and announce changes with notifications/*/list_changed,
// which Cairn turns into the events below so a window re-reads what it shows.
const (
	TypeResourcesChanged = "mcp:resources-changed" // data: {"id": …}
	TypePromptsChanged   = "mcp:prompts-changed"   // data: {"id": …}
)

// maxListed bounds one listing (servers page with cursors; a runaway server is cut off).
const maxListed = 2000

// ResourceInfo is one resource a server lists.
type ResourceInfo struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// ResourceTemplateInfo is a URI template (RFC 6570) the server can read resources by.
type ResourceTemplateInfo struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// ResourceList is what `cairn mcp resources` and the window show of one server.
type ResourceList struct {
	Resources []ResourceInfo         `json:"resources"`
	Templates []ResourceTemplateInfo `json:"templates"`
}

// ResourceContent is one part of a read resource: text, or a blob (base64, as on the
// wire, so the facade's JSON carries it unchanged).
type ResourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
	Size     int    `json:"size"` // bytes of the text or of the decoded blob
}

// PromptArg is one argument of a prompt (MCP prompt arguments are strings).
type PromptArg struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// PromptInfo is one prompt a server offers, with the arguments the composer asks for.
type PromptInfo struct {
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	Arguments   []PromptArg `json:"arguments"`
}

// PromptMessage is one message of a got prompt. Text is what the composer inserts: the
// text part, an embedded text resource's text, or a one-line description of other parts.
type PromptMessage struct {
	Role string `json:"role"`
	Kind string `json:"kind"` // text, image, audio, resource, resource_link
	Text string `json:"text"`
	URI  string `json:"uri,omitempty"`
}

// PromptResult is prompts/get's answer.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// onListChanged sets the handlers that tell windows a server's resources or prompts
// changed (go-sdk only calls them when the server advertises listChanged).
func (m *Manager) onListChanged(s *server, opts *mcp.ClientOptions) {
	id := s.id
	opts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) {
		s.log.Eventf("the server announced a new resource list")
		m.publish(TypeResourcesChanged, map[string]string{"id": id})
	}
	opts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) {
		s.log.Eventf("the server announced a new prompt list")
		m.publish(TypePromptsChanged, map[string]string{"id": id})
	}
}

// request runs one resources/* or prompts/* request on the server's session (connecting
// first), bounded by its call timeout, and maps a refusal to mcp_request_failed.
func (m *Manager) request(ctx context.Context, id, what string, f func(context.Context, *mcp.ClientSession, *mcp.ServerCapabilities) error) error {
	s, err := m.get(id)
	if err != nil {
		return err
	}
	c, err := s.session(ctx)
	if err != nil {
		return err
	}
	cfg := s.config()
	if d := cfg.callTimeout(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errCallTimeout)
		defer cancel()
	}
	defer m.running.add(id, ctx)()
	caps := &mcp.ServerCapabilities{}
	if ir := c.cs.InitializeResult(); ir != nil && ir.Capabilities != nil {
		caps = ir.Capabilities
	}
	err = f(ctx, c.cs, caps)
	switch {
	case err == nil:
		return nil
	case errors.Is(context.Cause(ctx), errCallTimeout):
		return callTimeoutError(cfg, what, err)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if ae, ok := m.signInLost(s, err); ok {
		return ae
	}
	if errors.Is(err, mcp.ErrConnectionClosed) {
		return apperr.Wrap(err, apperr.MCPUnreachable, "%s on %s", what, cfg.Name).
			WithParam("server", cfg.Name).WithParam("url", cfg.URL).WithParam("message", "the connection closed during the request")
	}
	return requestFailed(err, cfg.Name, what)
}

// requestFailed says a refusal once, in the server's words.
func requestFailed(err error, server, what string) error {
	msg := err.Error()
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Message != "" {
		msg = we.Message
	}
	return apperr.New(apperr.MCPRequestFailed, "%s on MCP server %s: %s", what, server, msg).
		WithParam("server", server).WithParam("what", what).WithParam("message", msg)
}

// collect drains a paging iterator, at most maxListed items.
func collect[T, U any](seq iter.Seq2[T, error], conv func(T) U) ([]U, error) {
	out := []U{}
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, conv(v))
		if len(out) >= maxListed {
			break
		}
	}
	return out, nil
}

// Resources lists a server's resources and resource templates. A server that does not
// offer resources has an empty list, not an error.
func (m *Manager) Resources(ctx context.Context, id string) (ResourceList, error) {
	out := ResourceList{Resources: []ResourceInfo{}, Templates: []ResourceTemplateInfo{}}
	err := m.request(ctx, id, "resources/list", func(ctx context.Context, cs *mcp.ClientSession, caps *mcp.ServerCapabilities) error {
		if caps.Resources == nil {
			return nil
		}
		var err error
		if out.Resources, err = collect(cs.Resources(ctx, nil), resourceInfo); err != nil {
			return err
		}
		out.Templates, err = collect(cs.ResourceTemplates(ctx, nil), templateInfo)
		return err
	})
	if err != nil {
		return ResourceList{}, err
	}
	return out, nil
}

func resourceInfo(r *mcp.Resource) ResourceInfo {
	i := ResourceInfo{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
	i.Size = r.Size
	return i
}

func templateInfo(t *mcp.ResourceTemplate) ResourceTemplateInfo {
	return ResourceTemplateInfo{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType}
}

// ReadResource reads one resource by URI (a listed one, one a template expands to, or a
// link from a tool result).
func (m *Manager) ReadResource(ctx context.Context, id, uri string) ([]ResourceContent, error) {
	uri = strings.TrimSpace(uri)
	if uri == "" {
		return nil, apperr.New(apperr.InvalidArgument, "a resource URI is required").WithParam("field", "uri")
	}
	var out []ResourceContent
	err := m.request(ctx, id, "resources/read "+uri, func(ctx context.Context, cs *mcp.ClientSession, _ *mcp.ServerCapabilities) error {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return err
		}
		out = make([]ResourceContent, 0, len(res.Contents))
		for _, c := range res.Contents {
			if c != nil {
				out = append(out, resourceContent(c))
			}
		}
		return nil
	})
	return out, err
}

func resourceContent(c *mcp.ResourceContents) ResourceContent {
	rc := ResourceContent{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Size: len(c.Text)}
	if c.Blob != nil {
		rc.Blob = base64.StdEncoding.EncodeToString(c.Blob)
		rc.Size = len(c.Blob)
	}
	return rc
}

// Prompts lists a server's prompts with their arguments (empty when it offers none).
func (m *Manager) Prompts(ctx context.Context, id string) ([]PromptInfo, error) {
	out := []PromptInfo{}
	err := m.request(ctx, id, "prompts/list", func(ctx context.Context, cs *mcp.ClientSession, caps *mcp.ServerCapabilities) error {
		if caps.Prompts == nil {
			return nil
		}
		var err error
		out, err = collect(cs.Prompts(ctx, nil), promptInfo)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func promptInfo(p *mcp.Prompt) PromptInfo {
	i := PromptInfo{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: []PromptArg{}}
	for _, a := range p.Arguments {
		if a != nil {
			i.Arguments = append(i.Arguments, PromptArg{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
	}
	return i
}

// GetPrompt gets one prompt filled with args and returns its messages.
func (m *Manager) GetPrompt(ctx context.Context, id, name string, args map[string]string) (PromptResult, error) {
	if strings.TrimSpace(name) == "" {
		return PromptResult{}, apperr.New(apperr.InvalidArgument, "a prompt name is required").WithParam("field", "name")
	}
	var out PromptResult
	err := m.request(ctx, id, "prompts/get "+name, func(ctx context.Context, cs *mcp.ClientSession, _ *mcp.ServerCapabilities) error {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			return err
		}
		out = PromptResult{Description: res.Description, Messages: make([]PromptMessage, 0, len(res.Messages))}
		for _, msg := range res.Messages {
			if msg != nil {
				out.Messages = append(out.Messages, promptMessage(msg))
			}
		}
		return nil
	})
	return out, err
}

func promptMessage(msg *mcp.PromptMessage) PromptMessage {
	pm := PromptMessage{Role: string(msg.Role)}
	switch v := msg.Content.(type) {
	case *mcp.TextContent:
		pm.Kind, pm.Text = "text", v.Text
	case *mcp.ImageContent:
		pm.Kind, pm.Text = "image", fmt.Sprintf("[image %s, %d bytes]", v.MIMEType, len(v.Data))
	case *mcp.AudioContent:
		pm.Kind, pm.Text = "audio", fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, len(v.Data))
	case *mcp.ResourceLink:
		pm.Kind, pm.URI = "resource_link", v.URI
		pm.Text = fmt.Sprintf("[resource link %s: %s]", strings.TrimSpace(v.Name+" "+v.Title), v.URI)
	case *mcp.EmbeddedResource:
		pm.Kind = "resource"
		if r := v.Resource; r != nil {
			pm.URI = r.URI
			pm.Text = r.Text
			if r.Text == "" {
				pm.Text = fmt.Sprintf("[resource %s %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
			}
		}
	}
	return pm
}

// ResourceReadTool is the name of the tool Cairn adds to a server that offers resources,
// so the model can read the resource links its tools return. It lives in the server's
// namespace as one of its tools: the same switch, per-tool approval choice, permission
// step and approval dialog as the server's own tools (`cairn mcp approval SERVER
// resource_read allow`); it is not marked read-only, so by default it asks.
const ResourceReadTool = "resource_read"

// resourceReadSchema is resource_read's input: the URI of a link or listed resource.
var resourceReadSchema = json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string","description":"The resource's URI, as a resource link in a tool result gives it"}},"required":["uri"],"additionalProperties":false}`)

// offersResourceRead: the server offers resources and has no tool of that name itself.
func offersResourceRead(cat catalog) bool {
	return cat.ServerInfo.Resources && !slices.ContainsFunc(cat.Tools, func(t *mcp.Tool) bool { return t != nil && t.Name == ResourceReadTool })
}

func resourceReadDescription(server string) string {
	return fmt.Sprintf("Read a resource of the MCP server %s by its URI: a resource link one of its tools returned, or a resource it lists.", server)
}

// resourceReadInfos is resource_read's row among the server's tools (Settings → MCP,
// `cairn mcp tools`), so its switch and approval choice are set like any other's.
func resourceReadInfos(cfg Server, cat catalog, prefs map[string]tools.Pref) []ToolInfo {
	if !offersResourceRead(cat) {
		return nil
	}
	p := prefOf(prefs, ResourceReadTool)
	return []ToolInfo{{
		Name: ResourceReadTool, WireName: tools.MCPName(cfg.ID, cfg.Name, ResourceReadTool), Title: "Read a resource",
		Description: resourceReadDescription(cfg.Name), InputSchema: resourceReadSchema,
		Enabled: p.Enabled, Approval: p.Approval, NeedsApproval: needsApproval(p, false),
	}}
}

// resourceReadEntries is the resource_read entry of a server that offers resources (none
// when it does not, or when one of its own tools already has that name).
func (m *Manager) resourceReadEntries(cfg Server, cat catalog, prefs map[string]tools.Pref) []tools.Entry {
	if !offersResourceRead(cat) {
		return nil
	}
	p := prefOf(prefs, ResourceReadTool)
	id := cfg.ID
	return []tools.Entry{{
		Name:           tools.MCPName(cfg.ID, cfg.Name, ResourceReadTool),
		Namespace:      tools.MCPNamespace(cfg.ID),
		NamespaceLabel: cfg.Name,
		Title:          ResourceReadTool,
		Description:    resourceReadDescription(cfg.Name),
		SearchHint:     "resource read link uri " + cfg.Name,
		InputSchema:    resourceReadSchema,
		Applies:        tools.WhenToolset("mcp"),
		Approval:       p.Approval,
		Timeout:        callBackstop(cfg.callTimeout()),
		Cancellable:    true,
		Execute: func(ctx context.Context, args json.RawMessage, _ func(tools.Progress)) (tools.Result, error) {
			var in struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return tools.Result{}, apperr.Wrap(err, apperr.InvalidArgument, "resource_read arguments").WithParam("field", "uri")
			}
			contents, err := m.ReadResource(ctx, id, in.URI)
			if err != nil {
				return tools.Result{}, err
			}
			return readResult(contents), nil
		},
	}}
}

// readResult is what the model reads of a resource: text verbatim, images handed over
// like a tool's images (the pipeline keeps them as files), other blobs described; the
// contents, blobs left out, are the card's Display.
func readResult(contents []ResourceContent) tools.Result {
	var parts []string
	var images []tools.Image
	shown := make([]ResourceContent, len(contents))
	for i, c := range contents {
		shown[i] = c
		switch {
		case c.Blob == "":
			parts = append(parts, c.Text)
		case strings.HasPrefix(c.MIMEType, "image/"):
			b, _ := base64.StdEncoding.DecodeString(c.Blob)
			images = append(images, tools.Image{MIMEType: c.MIMEType, Data: b})
			shown[i].Blob = ""
		default:
			parts = append(parts, fmt.Sprintf("[resource %s %s, %d bytes]", c.URI, c.MIMEType, c.Size))
			shown[i].Blob = ""
		}
	}
	out := tools.Result{Content: strings.Join(parts, "\n\n"), Images: images}
	if b, err := json.Marshal(map[string]any{"resource": shown}); err == nil && len(b) <= maxDisplay {
		out.Display = b
	}
	return out
}

package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	openai "github.com/sashabaranov/go-openai"
)

// Message is one message of a conversation sent to a model.
type Message struct {
	Role       string     `json:"role"` // system | user | assistant | tool
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`  // assistant
	ToolCallID string     `json:"toolCallId,omitempty"` // tool
	// Reasoning is what the model reasoned before this assistant message. The client
	// sends it back only where the provider's dialect needs it (ReasoningBack).
	Reasoning string `json:"reasoning,omitempty"`
	// Images of a user message are sent after its text as image_url parts (data: URLs),
	// the Chat Completions way. On a tool message they name the files the tool returned
	// (Path, no Data): the client never sends those; chat turns them into a user message
	// for a vision model.
	Images []Image `json:"images,omitempty"`
}

// Image is a picture in a message: its type and bytes, or the file it is kept in.
type Image struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"-"`
	Path     string `json:"path,omitempty"`
}

// Roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ToolCall is a tool call of the model, accumulated from stream deltas.
type ToolCall struct {
	Index     int    `json:"index"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolDef is one tool offered to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat completion. Temperature nil leaves the provider's default.
type Request struct {
	Model       string
	Messages    []Message
	Tools       []ToolDef
	Temperature *float64
	// TopP is nucleus sampling's share (nil = the provider's default).
	TopP *float64
	// MaxTokens bounds the answer (0 = the provider's default).
	MaxTokens int
	// Reasoning is the reasoning choice, sent in the fields of the provider's dialect
	// and only to providers that have them.
	Reasoning Reasoning
	// FirstByteTimeout ends a request whose answer has not started within it, and
	// IdleTimeout a stream that sends nothing for that long (0 = no limit).
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
}

// Usage is the token usage of one call (or the sum of several).
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	TotalTokens      int `json:"totalTokens"`
	ReasoningTokens  int `json:"reasoningTokens,omitempty"`
	CachedTokens     int `json:"cachedTokens,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
		ReasoningTokens:  u.ReasoningTokens + o.ReasoningTokens,
		CachedTokens:     u.CachedTokens + o.CachedTokens,
	}
}

// Result is what a stream produced. On error it holds what arrived before the error.
type Result struct {
	Text         string
	Reasoning    string
	ToolCalls    []ToolCall
	FinishReason string
	Usage        *Usage
	Retries      int
}

// Handler receives a stream as it arrives. Every field may be nil. Calls come from the
// goroutine that called Stream, in stream order.
type Handler struct {
	Text      func(delta string)
	Reasoning func(delta string)
	// ToolCall gets the call accumulated so far (index order is stable), the argument
	// fragment just added, and whether this is the first sight of the call.
	ToolCall func(call ToolCall, argsDelta string, first bool)
	// Retry is told before the client waits to retry a rate-limited request.
	Retry func(RetryInfo)
}

// RetryInfo describes a wait before a retry.
type RetryInfo struct {
	Attempt int           `json:"attempt"` // 1 for the first retry
	Wait    time.Duration `json:"wait"`
	Err     *apperr.Error `json:"error"`
}

// RetryPolicy bounds the retries of rate-limited requests: at most Max retries, each
// waiting Retry-After (or Base·2ⁿ without it); a wait longer than Cap is not attempted,
// the error goes to the user at once.
type RetryPolicy struct {
	Max  int
	Base time.Duration
	Cap  time.Duration
}

// DefaultRetry is the policy of a desktop chat: a few short waits, never minutes.
var DefaultRetry = RetryPolicy{Max: 3, Base: time.Second, Cap: 20 * time.Second}

// Client calls one provider.
type Client struct {
	oc      *openai.Client
	t       target
	retry   RetryPolicy
	client  *http.Client
	key     string
	dialect Dialect
	headers http.Header // the provider's custom headers, set on every request
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithDialect makes the client speak a provider's dialect (reasoning sent back, reasoning
// controls).
func WithDialect(d Dialect) ClientOption { return func(c *Client) { c.dialect = d } }

// NewHTTPClient returns the http.Client Cairn uses for providers: no overall timeout
// (answers stream for minutes), bounded dial and TLS set-up, and a transport that keeps
// rate-limit headers for the retry logic.
func NewHTTPClient() *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	base.TLSHandshakeTimeout = 10 * time.Second
	base.MaxIdleConnsPerHost = 8
	base.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: &metaTransport{base: base}}
}

// NewClient returns a client for baseURL with key ("" sends no Authorization header).
// httpClient should come from NewHTTPClient so Retry-After is honoured.
func NewClient(httpClient *http.Client, providerID, baseURL, key string, retry RetryPolicy, opts ...ClientOption) *Client {
	c := &Client{t: target{providerID: providerID, baseURL: strings.TrimRight(baseURL, "/")}, retry: retry, client: httpClient, key: key}
	for _, o := range opts {
		o(c)
	}
	cfg := openai.DefaultConfig(key)
	cfg.BaseURL = c.t.baseURL
	cfg.HTTPClient = wireDoer{next: httpClient, headers: c.headers}
	// SSE comments (": keep-alive", OpenRouter's ": PROCESSING") count as empty messages in
	// go-openai; a slow reasoning model can send many of them.
	cfg.EmptyMessagesLimit = 1 << 20
	c.oc = openai.NewClientWithConfig(cfg)
	return c
}

// respMeta is filled by metaTransport with what the error types of go-openai drop.
type respMeta struct {
	mu         sync.Mutex
	status     int
	retryAfter time.Duration
	hasRetry   bool
}

func (m *respMeta) retry() (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.retryAfter, m.hasRetry
}

type metaKey struct{}

type metaTransport struct{ base http.RoundTripper }

func (t *metaTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode >= 400 {
		if m, ok := req.Context().Value(metaKey{}).(*respMeta); ok {
			d, has := parseRetryAfter(resp.Header, time.Now())
			m.mu.Lock()
			m.status, m.retryAfter, m.hasRetry = resp.StatusCode, d, has
			m.mu.Unlock()
		}
	}
	return resp, err
}

// CloseIdleConnections lets tests and shutdown drop kept-alive connections.
func (t *metaTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// build turns req into go-openai's request and the fields go-openai cannot express,
// which the wire doer adds to the body (bodyPatch).
func (c *Client) build(req Request) (openai.ChatCompletionRequest, *bodyPatch) {
	out := openai.ChatCompletionRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		MaxTokens:     req.MaxTokens,
	}
	if c.dialect.NoStreamOptions {
		out.StreamOptions = nil
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		if t == 0 {
			// go-openai omits a zero temperature; the smallest float is "greedy" everywhere.
			t = math.SmallestNonzeroFloat32
		}
		out.Temperature = t
	}
	if req.TopP != nil {
		p := float32(*req.TopP)
		if p == 0 {
			p = math.SmallestNonzeroFloat32 // go-openai omits a zero, as for temperature
		}
		out.TopP = p
	}
	patch := &bodyPatch{fields: reasoningFields(c.dialect.Reasoning, req.Reasoning)}
	for i, m := range req.Messages {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == RoleUser && hasImageData(m.Images) {
			om.Content, om.MultiContent = "", imageParts(m)
		}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		}
		if c.dialect.ReasoningBack == ReasoningBackToolCalls && m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
			if patch.reasoning == nil {
				patch.reasoning = map[int]string{}
			}
			patch.reasoning[i] = m.Reasoning
		}
		out.Messages = append(out.Messages, om)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return out, patch
}

// Stream runs one streaming chat completion, calling h as deltas arrive. Rate-limited
// requests are retried per the policy before any data arrives. Errors are *apperr.Error
// (Canceled wrapping context.Canceled when ctx ends; a timeout when the provider stalls
// past req's limits); the Result then holds what arrived.
func (c *Client) Stream(ctx context.Context, req Request, h Handler) (Result, error) {
	t := c.t
	t.model = req.Model
	oreq, patch := c.build(req)
	t.sent = patch.fieldNames()
	var res Result
	for attempt := 0; ; attempt++ {
		err := c.attempt(ctx, req, oreq, patch, t, h, &res)
		if err == nil || err.meta == nil {
			return res, err.asError()
		}
		wait, ok := c.backoff(err.ae, err.meta, attempt)
		if !ok {
			return res, err.ae
		}
		if h.Retry != nil {
			h.Retry(RetryInfo{Attempt: attempt + 1, Wait: wait, Err: err.ae})
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return res, apperr.Wrap(context.Canceled, apperr.Canceled, "cancelled while waiting to retry")
		case <-timer.C:
		}
		res.Retries++
	}
}

// attemptError is how one attempt failed; meta is set when the request failed before
// any stream data, so a retry may follow.
type attemptError struct {
	ae   *apperr.Error
	meta *respMeta
}

func (e *attemptError) asError() error {
	if e == nil {
		return nil
	}
	return e.ae
}

// attempt sends the request once and consumes its stream, under the watchdog of req's
// timeouts.
func (c *Client) attempt(ctx context.Context, req Request, oreq openai.ChatCompletionRequest, patch *bodyPatch, t target, h Handler, res *Result) *attemptError {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := startWatchdog(req.FirstByteTimeout, req.IdleTimeout, cancel)
	defer wd.stop()
	meta := &respMeta{}
	actx = context.WithValue(context.WithValue(context.WithValue(actx, metaKey{}, meta), patchKey{}, patch), watchdogKey{}, wd)
	stream, err := c.oc.CreateChatCompletionStream(actx, oreq)
	if err != nil {
		if te := timeoutError(ctx, actx, t, req); te != nil {
			return &attemptError{ae: te}
		}
		return &attemptError{ae: mapError(actx, err, meta, t), meta: meta}
	}
	err = c.consume(actx, stream, t, h, res)
	if te := timeoutError(ctx, actx, t, req); te != nil {
		return &attemptError{ae: te}
	}
	if err != nil {
		return &attemptError{ae: apperr.From(err)}
	}
	return nil
}

// backoff says whether and how long to wait before retrying after ae.
func (c *Client) backoff(ae *apperr.Error, meta *respMeta, attempt int) (time.Duration, bool) {
	if ae.Code != apperr.ModelRateLimited || attempt >= c.retry.Max {
		return 0, false
	}
	wait, has := meta.retry()
	if !has {
		wait = c.retry.Base << attempt
	}
	if c.retry.Cap > 0 && wait > c.retry.Cap {
		return 0, false
	}
	return wait, true
}

func (c *Client) consume(ctx context.Context, stream *openai.ChatCompletionStream, t target, h Handler, res *Result) error {
	defer stream.Close()
	var acc accumulator
	var text, reasoning strings.Builder
	defer func() {
		res.Text, res.Reasoning = text.String(), reasoning.String()
		res.ToolCalls = acc.finish()
	}()
	for {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return mapStreamError(ctx, err, t)
		}
		var ch chunk
		if err := json.Unmarshal(raw, &ch); err != nil {
			if ctx.Err() != nil {
				return mapStreamError(ctx, ctx.Err(), t)
			}
			return mapStreamError(ctx, err, t)
		}
		if ch.Error != nil {
			return mapStreamError(ctx, ch.Error, t)
		}
		if ch.Usage != nil {
			u := ch.Usage.usage()
			res.Usage = &u
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			apply(choice, h, &acc, &text, &reasoning, res)
		}
	}
	if ctx.Err() != nil {
		return mapStreamError(ctx, ctx.Err(), t)
	}
	if res.FinishReason == "" {
		return apperr.New(apperr.ModelStreamMalformed, "stream from %s ended before the model finished (no finish_reason)", t.baseURL)
	}
	return nil
}

// apply adds one choice of a chunk to what arrived and tells the handler.
func apply(ch choice, h Handler, acc *accumulator, text, reasoning *strings.Builder, res *Result) {
	d := ch.Delta
	if r := d.reasoning(); r != "" {
		reasoning.WriteString(r)
		if h.Reasoning != nil {
			h.Reasoning(r)
		}
	}
	if s := d.Content.text; s != "" {
		text.WriteString(s)
		if h.Text != nil {
			h.Text(s)
		}
	}
	for pos, tc := range d.ToolCalls {
		call, frag, first := acc.add(pos, tc)
		if h.ToolCall != nil {
			h.ToolCall(call, frag, first)
		}
	}
	if ch.FinishReason != "" {
		res.FinishReason = ch.FinishReason
	}
	if ch.Usage != nil && (res.Usage == nil || ch.Usage.TotalTokens > 0 || ch.Usage.PromptTokens > 0) {
		u := ch.Usage.usage()
		res.Usage = &u
	}
}

func hasImageData(imgs []Image) bool {
	for _, im := range imgs {
		if len(im.Data) > 0 {
			return true
		}
	}
	return false
}

// imageParts is a user message as Chat Completions content parts: its text, then each
// image as a data: URL.
func imageParts(m Message) []openai.ChatMessagePart {
	var parts []openai.ChatMessagePart
	if m.Content != "" {
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Content})
	}
	for _, im := range m.Images {
		if len(im.Data) == 0 {
			continue
		}
		url := "data:" + im.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: url, Detail: openai.ImageURLDetailAuto}})
	}
	return parts
}

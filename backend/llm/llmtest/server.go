// Package llmtest is a local HTTP server that speaks the OpenAI chat-completions wire
// format (SSE `data:` chunks, tool-call deltas split at awkward places, reasoning_content,
// a usage chunk, `[DONE]`, JSON error bodies, cut and malformed streams, slow streams), so
// the real go-openai client runs in every test. Tests script replies in order with
// Enqueue or answer by request with Handle; cmd/fakeopenai serves named scenarios to
// other processes (browser end-to-end tests).
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Request is one chat-completions request the server received.
type Request struct {
	Header http.Header
	Raw    []byte
	Body   ChatRequest
}

// ChatRequest is the part of the request body tests assert on.
type ChatRequest struct {
	Model         string          `json:"model"`
	Messages      []Message       `json:"messages"`
	Tools         []Tool          `json:"tools,omitempty"`
	Stream        bool            `json:"stream"`
	Temperature   *float64        `json:"temperature,omitempty"`
	TopP          *float64        `json:"top_p,omitempty"`
	MaxTokens     int             `json:"max_tokens,omitempty"`
	StreamOptions *StreamOptions  `json:"stream_options,omitempty"`
	Extra         json.RawMessage `json:"-"`
}

// StreamOptions mirrors stream_options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Message is one request message. Content is its text: the string, or the text parts of
// a content array joined; Parts is the array as sent (nil for a string).
type Message struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	Parts      []ContentPart  `json:"-"`
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	// ReasoningContent is nil when the message has no reasoning_content field at all.
	ReasoningContent *string `json:"reasoning_content,omitempty"`
}

// ContentPart is one part of a content array: text, or an image_url (a data: or http URL).
type ContentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL *struct {
		URL    string `json:"url"`
		Detail string `json:"detail,omitempty"`
	} `json:"image_url,omitempty"`
}

// UnmarshalJSON reads content as a string or as an array of parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	var raw struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = Message(raw.plain)
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	if raw.Content[0] == '"' {
		return json.Unmarshal(raw.Content, &m.Content)
	}
	if err := json.Unmarshal(raw.Content, &m.Parts); err != nil {
		return err
	}
	var texts []string
	for _, p := range m.Parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	m.Content = strings.Join(texts, "\n")
	return nil
}

// ImageURLs are the URLs of the message's image_url parts.
func (m Message) ImageURLs() []string {
	var out []string
	for _, p := range m.Parts {
		if p.Type == "image_url" && p.ImageURL != nil {
			out = append(out, p.ImageURL.URL)
		}
	}
	return out
}

// WireToolCall is a tool call inside a request's assistant message.
type WireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Tool is one tool definition of a request.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// LastMessage is the final message of the request (zero value when there is none).
func (r ChatRequest) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// ToolNames lists the names of the tools offered in the request.
func (r ChatRequest) ToolNames() []string {
	out := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// Model is one entry of GET /v1/models, with the window fields providers add: OpenRouter
// and Together context_length (OpenRouter also under top_provider), Groq context_window,
// Mistral and LM Studio max_context_length, vLLM max_model_len.
type Model struct {
	ID               string       `json:"id"`
	ContextLength    int          `json:"context_length,omitempty"`
	ContextWindow    int          `json:"context_window,omitempty"`
	MaxContextLength int          `json:"max_context_length,omitempty"`
	MaxModelLen      int          `json:"max_model_len,omitempty"`
	TopProvider      *TopProvider `json:"top_provider,omitempty"`
	// SupportedParameters follows OpenRouter ("tools" marks tool support).
	SupportedParameters []string `json:"supported_parameters,omitempty"`
	// Pricing follows OpenRouter: USD per token as decimal strings ("prompt",
	// "completion", "input_cache_read", …).
	Pricing map[string]string `json:"pricing,omitempty"`
}

// TopProvider is OpenRouter's top_provider of a model.
type TopProvider struct {
	ContextLength int `json:"context_length,omitempty"`
}

// Server is a running fake provider. URL is the base URL to configure (ends in /v1).
type Server struct {
	URL string

	ln   net.Listener
	srv  *http.Server
	wg   sync.WaitGroup
	ctx  context.Context
	stop context.CancelFunc

	mu       sync.Mutex
	apiKey   string
	models   []Model
	script   []Reply
	handler  func(Request) Reply
	requests []Request
	notify   chan struct{}
}

// Option configures a Server.
type Option func(*Server)

// WithAPIKey makes the server answer 401 unless requests carry `Bearer key`.
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// WithModels sets what GET /v1/models lists.
func WithModels(models ...Model) Option { return func(s *Server) { s.models = models } }

// WithHandler answers every request the script does not cover.
func WithHandler(h func(Request) Reply) Option { return func(s *Server) { s.handler = h } }

// New starts a server on 127.0.0.1 with a random port.
func New(opts ...Option) (*Server, error) { return Listen("127.0.0.1:0", opts...) }

// Listen starts a server on addr.
func Listen(addr string, opts ...Option) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{ln: ln, ctx: ctx, stop: stop, notify: make(chan struct{}, 1)}
	s.models = []Model{{ID: "fake-model", ContextLength: 32768, SupportedParameters: []string{"tools"}}}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("GET /v1/models", s.serveModels)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.URL = "http://" + ln.Addr().String() + "/v1"
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Start is New for tests: it fails the test on error and closes the server at cleanup.
func Start(t interface {
	Helper()
	Fatalf(string, ...any)
	Cleanup(func())
}, opts ...Option) *Server {
	t.Helper()
	s, err := New(opts...)
	if err != nil {
		t.Fatalf("llmtest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Close stops the server, ending slow streams at once.
func (s *Server) Close() {
	s.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
	s.wg.Wait()
}

// Enqueue appends replies served to the next requests, in order.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Handle sets the reply function for requests beyond the script.
func (s *Server) Handle(h func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// Requests returns a copy of every chat request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Pending is the number of scripted replies not served yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// WaitRequests blocks until n chat requests arrived or ctx ends.
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		got := len(s.requests)
		s.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-s.notify:
		case <-ctx.Done():
			return fmt.Errorf("llmtest: %d of %d requests: %w", got, n, ctx.Err())
		}
	}
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	key := s.apiKey
	s.mu.Unlock()
	if key == "" || r.Header.Get("Authorization") == "Bearer "+key {
		return true
	}
	writeError(w, Reply{Status: 401, Error: &APIError{
		Message: "Incorrect API key provided.", Type: "invalid_request_error", Code: "invalid_api_key",
	}})
	return false
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	s.mu.Lock()
	models := append([]Model(nil), s.models...)
	s.mu.Unlock()
	type entry struct {
		Model
		Object  string `json:"object"`
		OwnedBy string `json:"owned_by"`
	}
	data := make([]entry, 0, len(models))
	for _, m := range models {
		data = append(data, entry{Model: m, Object: "model", OwnedBy: "llmtest"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return
	}
	if !s.authorized(w, r) {
		return
	}
	var body ChatRequest
	if err := json.Unmarshal(raw, &body); err != nil {
		writeError(w, Reply{Status: 400, Error: &APIError{Message: "invalid JSON body: " + err.Error(), Type: "invalid_request_error"}})
		return
	}
	req := Request{Header: r.Header.Clone(), Raw: raw, Body: body}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var reply Reply
	switch {
	case len(s.script) > 0:
		reply = s.script[0]
		s.script = s.script[1:]
	case s.handler != nil:
		h := s.handler
		s.mu.Unlock()
		reply = h(req)
		s.mu.Lock()
	default:
		reply = Reply{Text: "ok"}
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply)
		return
	}
	if !body.Stream {
		s.writeNonStreaming(w, body, reply)
		return
	}
	s.writeStream(w, r, body, reply)
}

func writeError(w http.ResponseWriter, reply Reply) {
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.ErrorBody != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		_, _ = io.WriteString(w, reply.ErrorBody)
		return
	}
	if reply.RawBody != "" {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(reply.Status)
		_, _ = io.WriteString(w, reply.RawBody)
		return
	}
	e := reply.Error
	if e == nil {
		e = &APIError{Message: http.StatusText(reply.Status), Type: "server_error"}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(reply.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
}

func (s *Server) writeNonStreaming(w http.ResponseWriter, body ChatRequest, reply Reply) {
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if reply.Reasoning != "" {
		msg["reasoning_content"] = reply.Reasoning
	}
	if len(reply.ToolCalls) > 0 {
		var tcs []map[string]any
		for i, tc := range reply.ToolCalls {
			tcs = append(tcs, map[string]any{"id": tc.id(i), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = tcs
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": time.Now().Unix(), "model": body.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": reply.finishReason()}},
		"usage":   reply.usage(body),
	})
}

// writeStream sends the reply as SSE, honouring delays, cuts and malformed lines. It stops
// as soon as the client goes away or the server closes.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, body ChatRequest, reply Reply) {
	events := reply.events(body)
	flusher, _ := w.(http.Flusher)
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	wait := func(d time.Duration) bool {
		if d <= 0 {
			return true
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-r.Context().Done():
			return false
		case <-s.ctx.Done():
			return false
		}
	}
	if !wait(reply.FirstDelay) {
		return
	}
	for i, ev := range events {
		if i > 0 && !wait(reply.Delay) {
			return
		}
		if reply.StallAfter > 0 && i == reply.StallAfter {
			select {
			case <-r.Context().Done():
			case <-s.ctx.Done():
			}
			return
		}
		if reply.CutAfter > 0 && i == reply.CutAfter {
			// Half an event, then the connection drops without ending the chunked body.
			_, _ = w.Write(ev[:len(ev)/2])
			if flusher != nil {
				flusher.Flush()
			}
			panic(http.ErrAbortHandler)
		}
		if reply.MalformedAfter > 0 && i == reply.MalformedAfter {
			_, _ = io.WriteString(w, "data: {\"id\":\"chatcmpl-llmtest\",\"choices\":[{\"delta\":{\"content\":\"oops\"}}\n\n")
			if flusher != nil {
				flusher.Flush()
			}
			return
		}
		if reply.SplitWrites && len(ev) > 2 {
			// Awkward TCP boundaries: half an event per write.
			_, _ = w.Write(ev[:len(ev)/2])
			if flusher != nil {
				flusher.Flush()
			}
			ev = ev[len(ev)/2:]
		}
		if _, err := w.Write(ev); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

func (tc ToolCall) id(i int) string {
	if tc.ID != "" {
		return tc.ID
	}
	return fmt.Sprintf("call_%d_%s", i, strings.ToLower(strings.ReplaceAll(tc.Name, "_", "")))
}

package llmtest

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// APIError is the body of an OpenAI error response: {"error": {...}}.
type APIError struct {
	Message string `json:"message"`
	Type    string `json:"type,omitempty"`
	Param   string `json:"param,omitempty"`
	Code    any    `json:"code,omitempty"`
}

// ToolCall is one tool call the fake model makes.
type ToolCall struct {
	ID        string // generated when empty
	Name      string
	Arguments string // sent verbatim, valid JSON or not
}

// Usage is the token usage reported in the final chunk.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	ReasoningTokens  int
	// CachedTokens are the prompt tokens read from the cache (prompt_tokens_details).
	CachedTokens int
}

// Reply is the fake model's answer to one request.
type Reply struct {
	// Status other than 0/200 answers with an error: Error as a JSON body, or RawBody
	// verbatim (an HTML error page, say). Header adds response headers (Retry-After).
	Status  int
	Error   *APIError
	RawBody string
	Header  map[string]string
	// ErrorBody is a JSON error body sent verbatim (application/json), for providers
	// whose error shape the APIError type cannot copy exactly ("param": null).
	ErrorBody string

	// Raw, when set, is the whole stream as a provider recorded it: each entry is sent as
	// one SSE event ("data: " + entry + blank line), entries starting with ":" as comment
	// lines. Nothing is added, not even [DONE], unless listed.
	Raw []string

	Reasoning    string
	Text         string
	ToolCalls    []ToolCall
	FinishReason string // default "stop", or "tool_calls" when there are tool calls
	Usage        *Usage // default: computed from the lengths when the client asks for usage

	// ChunkRunes is how many runes of text/reasoning go in one chunk (default 3).
	ChunkRunes int
	// ArgBytes is how many bytes of tool arguments go in one fragment (default 5, never
	// splitting a rune).
	ArgBytes int
	// SplitToolHead sends a call's id in one chunk and its name in two more halves before
	// the arguments, the most awkward order providers use.
	SplitToolHead bool
	// Interleave alternates fragments of parallel tool calls instead of sending each call
	// whole.
	Interleave bool
	// NoIndex leaves out the tool-call "index" field (some providers do), relying on ids.
	NoIndex bool
	// SplitWrites writes each SSE event in two halves (lines cut across TCP writes).
	SplitWrites bool

	// FirstDelay waits before the first event; Delay waits between events.
	FirstDelay time.Duration
	Delay      time.Duration
	// StallAfter > 0 sends that many events, then keeps the connection open and silent
	// until the client goes away (a provider that stops between chunks).
	StallAfter int
	// CutAfter > 0 sends that many events, then half of the next, then drops the connection.
	CutAfter int
	// MalformedAfter > 0 sends that many events, then a data line that is not JSON, then ends.
	MalformedAfter int
	// StreamError sends {"error": ...} as a data line after the content (mid-stream error).
	StreamError *APIError
	// NoFinish leaves out finish_reason and [DONE]: the stream just ends.
	NoFinish bool
	// Comments adds ": keep-alive" SSE comment lines between events.
	Comments bool
}

func (r Reply) finishReason() string {
	if r.FinishReason != "" {
		return r.FinishReason
	}
	if len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (r Reply) usage(req ChatRequest) map[string]any {
	u := r.Usage
	if u == nil {
		prompt := 0
		for _, m := range req.Messages {
			prompt += len(m.Content)/4 + 4
		}
		completion := (len(r.Text) + len(r.Reasoning)) / 4
		for _, tc := range r.ToolCalls {
			completion += (len(tc.Name) + len(tc.Arguments)) / 4
		}
		u = &Usage{PromptTokens: prompt, CompletionTokens: completion + 1, ReasoningTokens: len(r.Reasoning) / 4}
	}
	out := map[string]any{
		"prompt_tokens":     u.PromptTokens,
		"completion_tokens": u.CompletionTokens,
		"total_tokens":      u.PromptTokens + u.CompletionTokens,
	}
	if u.ReasoningTokens > 0 {
		out["completion_tokens_details"] = map[string]any{"reasoning_tokens": u.ReasoningTokens}
	}
	if u.CachedTokens > 0 {
		out["prompt_tokens_details"] = map[string]any{"cached_tokens": u.CachedTokens}
	}
	return out
}

type wireChunk struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []wireChoice   `json:"choices"`
	Usage   map[string]any `json:"usage,omitempty"`
}

type wireChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireDelta struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
}

type wireToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function wireFn `json:"function"`
}

type wireFn struct {
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
}

// SplitRunes cuts s into pieces of n runes (n < 1 means 1).
func SplitRunes(s string, n int) []string {
	if n < 1 {
		n = 1
	}
	var out []string
	for len(s) > 0 {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// splitBytes cuts s into pieces of about n bytes without splitting a rune.
func splitBytes(s string, n int) []string {
	if n < 1 {
		n = 1
	}
	var out []string
	for len(s) > 0 {
		i := n
		if i >= len(s) {
			out = append(out, s)
			break
		}
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func strp(s string) *string { return &s }

// events renders the reply as SSE events, each "data: ...\n\n" (comments included).
func (r Reply) events(req ChatRequest) [][]byte {
	if len(r.Raw) > 0 {
		out := make([][]byte, 0, len(r.Raw))
		for _, ev := range r.Raw {
			if len(ev) > 0 && ev[0] == ':' {
				out = append(out, []byte(ev+"\n\n"))
				continue
			}
			out = append(out, []byte("data: "+ev+"\n\n"))
		}
		return out
	}
	created := time.Now().Unix()
	chunk := func(d wireDelta, finish *string) []byte {
		c := wireChunk{ID: "chatcmpl-llmtest", Object: "chat.completion.chunk", Created: created, Model: req.Model,
			Choices: []wireChoice{{Index: 0, Delta: d, FinishReason: finish}}}
		b, _ := json.Marshal(c)
		return []byte("data: " + string(b) + "\n\n")
	}
	var out [][]byte
	add := func(ev []byte) {
		if r.Comments {
			out = append(out, []byte(": keep-alive\n\n"))
		}
		out = append(out, ev)
	}
	n := r.ChunkRunes
	if n == 0 {
		n = 3
	}
	add(chunk(wireDelta{Role: "assistant", Content: strp("")}, nil))
	for _, piece := range SplitRunes(r.Reasoning, n) {
		add(chunk(wireDelta{ReasoningContent: strp(piece)}, nil))
	}
	for _, piece := range SplitRunes(r.Text, n) {
		add(chunk(wireDelta{Content: strp(piece)}, nil))
	}
	for _, frag := range r.toolFragments() {
		add(chunk(wireDelta{ToolCalls: []wireToolCall{frag}}, nil))
	}
	if r.StreamError != nil {
		b, _ := json.Marshal(map[string]any{"error": r.StreamError})
		add([]byte("data: " + string(b) + "\n\n"))
		return out
	}
	if r.NoFinish {
		return out
	}
	add(chunk(wireDelta{}, strp(r.finishReason())))
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		c := wireChunk{ID: "chatcmpl-llmtest", Object: "chat.completion.chunk", Created: created, Model: req.Model,
			Choices: []wireChoice{}, Usage: r.usage(req)}
		b, _ := json.Marshal(c)
		add([]byte("data: " + string(b) + "\n\n"))
	}
	add([]byte("data: [DONE]\n\n"))
	return out
}

// toolFragments splits every tool call into wire fragments: a head (id, type, name) and
// argument pieces, optionally interleaved across calls.
func (r Reply) toolFragments() []wireToolCall {
	ab := r.ArgBytes
	if ab == 0 {
		ab = 5
	}
	per := make([][]wireToolCall, len(r.ToolCalls))
	for i, tc := range r.ToolCalls {
		idx := i
		ip := &idx
		if r.NoIndex {
			ip = nil
		}
		id := tc.id(i)
		var frags []wireToolCall
		if r.SplitToolHead {
			half := len(tc.Name) / 2
			frags = append(frags,
				wireToolCall{Index: ip, ID: id, Type: "function", Function: wireFn{Arguments: strp("")}},
				wireToolCall{Index: ip, Function: wireFn{Name: tc.Name[:half]}},
				wireToolCall{Index: ip, Function: wireFn{Name: tc.Name[half:]}})
		} else {
			frags = append(frags, wireToolCall{Index: ip, ID: id, Type: "function", Function: wireFn{Name: tc.Name, Arguments: strp("")}})
		}
		for _, piece := range splitBytes(tc.Arguments, ab) {
			f := wireToolCall{Index: ip, Function: wireFn{Arguments: strp(piece)}}
			if r.NoIndex {
				f.ID = id // without an index, providers repeat the id on every fragment
			}
			frags = append(frags, f)
		}
		per[i] = frags
	}
	var out []wireToolCall
	if !r.Interleave {
		for _, f := range per {
			out = append(out, f...)
		}
		return out
	}
	for k := 0; ; k++ {
		more := false
		for _, f := range per {
			if k < len(f) {
				out = append(out, f[k])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// String describes a reply briefly, for test logs.
func (r Reply) String() string {
	if r.Status != 0 && r.Status != 200 {
		return fmt.Sprintf("error %d", r.Status)
	}
	return fmt.Sprintf("text %d bytes, %d tool calls", len(r.Text), len(r.ToolCalls))
}

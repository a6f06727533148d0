package llm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// chunk is one streamed chat-completion chunk, decoded by Cairn rather than go-openai so
// that every provider's shape is read: the reasoning field of each family
// ("reasoning_content" for DeepSeek/Qwen/GLM/Kimi, "reasoning" for OpenRouter, Ollama and
// vLLM), content as a string or as a list of typed parts (Mistral's thinking models), a
// tool call without an index, and usage at the top level or inside a choice (some
// Moonshot models).
type chunk struct {
	Choices []choice         `json:"choices"`
	Usage   *wireUsage       `json:"usage"`
	Error   *openai.APIError `json:"error"`
}

type choice struct {
	Index        int        `json:"index"`
	Delta        delta      `json:"delta"`
	FinishReason string     `json:"finish_reason"`
	Usage        *wireUsage `json:"usage"`
}

type delta struct {
	Content          content         `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

func (d delta) reasoning() string {
	r := d.ReasoningContent
	if r == "" {
		r = d.Reasoning
	}
	return r + d.Content.thinking
}

// content is delta.content: a string (or null), or a list of parts where "text" parts
// are answer text and "thinking" parts (whose "thinking" is itself a list of text parts,
// or a string) are reasoning. Parts of other types (references, images) are skipped.
type content struct {
	text, thinking string
}

type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

func (c *content) UnmarshalJSON(b []byte) error {
	*c = content{}
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil
	case b[0] == '"':
		return json.Unmarshal(b, &c.text)
	}
	var parts []contentPart
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var text, thinking strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text":
			text.WriteString(p.Text)
		case "thinking":
			s, err := partsText(p.Thinking)
			if err != nil {
				return err
			}
			thinking.WriteString(s)
		}
	}
	c.text, c.thinking = text.String(), thinking.String()
	return nil
}

// partsText reads a thinking part's body: a string or a list of text parts.
func partsText(b json.RawMessage) (string, error) {
	if len(b) == 0 || string(b) == "null" {
		return "", nil
	}
	if b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		return s, err
	}
	var parts []contentPart
	if err := json.Unmarshal(b, &parts); err != nil {
		return "", err
	}
	var out strings.Builder
	for _, p := range parts {
		if p.Type == "" || p.Type == "text" {
			out.WriteString(p.Text)
		}
	}
	return out.String(), nil
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens            int `json:"prompt_tokens"`
	CompletionTokens        int `json:"completion_tokens"`
	TotalTokens             int `json:"total_tokens"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"` // DeepSeek
}

func (w wireUsage) usage() Usage {
	u := Usage{PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens, TotalTokens: w.TotalTokens}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if w.CompletionTokensDetails != nil {
		u.ReasoningTokens = w.CompletionTokensDetails.ReasoningTokens
	}
	if w.PromptTokensDetails != nil {
		u.CachedTokens = w.PromptTokensDetails.CachedTokens
	}
	if u.CachedTokens == 0 {
		u.CachedTokens = w.PromptCacheHitTokens
	}
	return u
}

// accumulator joins tool-call deltas into calls: one call per id. A delta with a known id
// continues that call. Otherwise a delta with an index continues the call that index first
// named; an index not seen yet names a call opened without one (the one at its position,
// else the first such call), or else opens a call; a different id at a known index opens
// a new call too, as some providers reuse index 0. A delta with neither index nor id
// continues, by its position in the chunk, the calls the latest opening chunk opened (the
// latest call when that chunk opened fewer). A call whose id has not arrived gets a
// made-up one at once, replaced if the real one comes, so every call has an id.
type accumulator struct {
	calls     []ToolCall
	generated []bool // the call's id was made up by Cairn, a real one may still come
	indexed   []bool // some index names the call
	byIndex   map[int]int
	byID      map[string]int
	group     []int // the calls the latest chunk that opened calls opened, in its order
	fresh     bool  // the current chunk has not opened a call yet
}

// add takes the tool-call delta at position pos of a chunk's tool_calls.
func (a *accumulator) add(pos int, d toolCallDelta) (ToolCall, string, bool) {
	if a.byIndex == nil {
		a.byIndex, a.byID = map[int]int{}, map[string]int{}
	}
	if pos == 0 {
		a.fresh = true
	}
	slot := a.find(pos, d)
	first := slot < 0
	if first {
		if a.fresh {
			a.group, a.fresh = nil, false
		}
		slot = len(a.calls)
		a.calls = append(a.calls, ToolCall{Index: slot, ID: "call_" + randomHex(8)})
		a.generated = append(a.generated, true)
		a.indexed = append(a.indexed, false)
		a.group = append(a.group, slot)
	}
	if d.Index != nil {
		if _, known := a.byIndex[*d.Index]; !known || first {
			a.byIndex[*d.Index] = slot
		}
		a.indexed[slot] = true
	}
	c := &a.calls[slot]
	if d.ID != "" && a.generated[slot] {
		c.ID, a.generated[slot] = d.ID, false
		a.byID[d.ID] = slot
	}
	if n := d.Function.Name; n != "" && c.Name != n {
		// Names usually arrive whole once; some providers split them, a few repeat them.
		c.Name += n
	}
	c.Arguments += d.Function.Arguments
	return *c, d.Function.Arguments, first
}

// find returns the call a delta continues, or -1 when it opens one.
func (a *accumulator) find(pos int, d toolCallDelta) int {
	if s, ok := a.byID[d.ID]; ok && d.ID != "" {
		return s
	}
	if d.Index != nil {
		if s, ok := a.byIndex[*d.Index]; ok {
			if d.ID == "" || a.generated[s] {
				return s
			}
			return -1
		}
		if d.ID != "" {
			return -1
		}
		return a.unindexed(*d.Index)
	}
	switch {
	case d.ID != "" || len(a.calls) == 0:
		return -1
	case pos < len(a.group):
		return a.group[pos]
	}
	return len(a.calls) - 1
}

// unindexed is the call opened without an index that index i names: the one at position
// i when no index names it yet, else the first such call; -1 when there is none.
func (a *accumulator) unindexed(i int) int {
	if i >= 0 && i < len(a.calls) && !a.indexed[i] {
		return i
	}
	for s := range a.calls {
		if !a.indexed[s] {
			return s
		}
	}
	return -1
}

// finish returns the calls in order.
func (a *accumulator) finish() []ToolCall {
	out := make([]ToolCall, len(a.calls))
	copy(out, a.calls)
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

package llm

import (
	"crypto/rand"
	"encoding/hex"

	openai "github.com/sashabaranov/go-openai"
)

// chunk is one streamed chat-completion chunk, decoded by Cairn rather than go-openai so
// that the reasoning field of every provider family is read ("reasoning_content" for
// DeepSeek/Qwen/GLM, "reasoning" for OpenRouter and vLLM) and a tool call without an
// index is still accepted.
type chunk struct {
	Choices []struct {
		Index        int    `json:"index"`
		Delta        delta  `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage       `json:"usage"`
	Error *openai.APIError `json:"error"`
}

type delta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

func (d delta) reasoning() string {
	if d.ReasoningContent != "" {
		return d.ReasoningContent
	}
	return d.Reasoning
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

// accumulator joins tool-call deltas into calls. A delta belongs to the call with its id
// if that id was seen; else to the call at its wire index (a different id at a known
// index starts a new call, as some providers reuse index 0); without an index, a new id
// starts a call and no id continues the latest. A call whose id has not arrived gets a
// made-up one at once, replaced if the real one comes, so every call has an id.
type accumulator struct {
	calls     []ToolCall
	generated []bool // the call's id was made up by Cairn, a real one may still come
	byIndex   map[int]int
	byID      map[string]int
}

func (a *accumulator) add(pos int, d toolCallDelta) (ToolCall, string, bool) {
	if a.byIndex == nil {
		a.byIndex, a.byID = map[int]int{}, map[string]int{}
	}
	slot, first := -1, false
	if d.ID != "" {
		if s, ok := a.byID[d.ID]; ok {
			slot = s
		}
	}
	if slot < 0 {
		switch {
		case d.Index != nil:
			if s, ok := a.byIndex[*d.Index]; ok && (d.ID == "" || a.generated[s]) {
				slot = s
			}
		case d.ID == "" && len(a.calls) > 0:
			slot = len(a.calls) - 1
			if pos > 0 && pos < len(a.calls) {
				slot = pos
			}
		}
	}
	if slot < 0 {
		slot, first = len(a.calls), true
		a.calls = append(a.calls, ToolCall{Index: slot, ID: "call_" + randomHex(8)})
		a.generated = append(a.generated, true)
	}
	if d.Index != nil {
		a.byIndex[*d.Index] = slot
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

package tools

import (
	"encoding/json"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// tokenCounter counts prompt tokens with o200k_base (embedded in the module, nothing is
// downloaded). The vocabulary is loaded on first use; if it cannot be, a 4-bytes-per-token
// estimate keeps deferral working.
type tokenCounter struct {
	once  sync.Once
	codec tokenizer.Codec
}

func (t *tokenCounter) count(s string) int {
	t.once.Do(func() {
		c, err := tokenizer.Get(tokenizer.O200kBase)
		if err == nil {
			t.codec = c
		}
	})
	if t.codec != nil {
		if n, err := t.codec.Count(s); err == nil {
			return n
		}
	}
	return (len(s) + 3) / 4
}

// wireDefinition is a definition as an OpenAI-compatible request carries it; its JSON
// text is what the prompt pays for.
type wireDefinition struct {
	Type     string     `json:"type"`
	Function Definition `json:"function"`
}

// definitionTokens is the prompt cost of one tool definition.
func (t *tokenCounter) definitionTokens(d Definition) int {
	b, err := json.Marshal(wireDefinition{Type: "function", Function: d})
	if err != nil {
		return t.count(d.Name + d.Description + string(d.Parameters))
	}
	return t.count(string(b))
}

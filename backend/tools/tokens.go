package tools

import (
	"encoding/json"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// tokenCounter counts prompt tokens with o200k_base (embedded in the module, nothing is
// downloaded). The vocabulary is built on first use. The codec package is used directly,
// not tokenizer.Get: Get refers to every encoding, which would link the other four
// vocabularies' generated code (~10 MB of binary, mapped by every Cairn process) for nothing.
type tokenCounter struct {
	once  sync.Once
	codec *codec.Codec
}

func (t *tokenCounter) count(s string) int {
	t.once.Do(func() { t.codec = codec.NewO200kBase() })
	if n, err := t.codec.Count(s); err == nil {
		return n
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

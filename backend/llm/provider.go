// Package llm talks to OpenAI-compatible model providers through go-openai: the provider
// list (stored in SQLite, keys in the secret store), model lists and capabilities, one
// streaming chat call with tool-call accumulation, and the mapping of every provider
// failure to an apperr the user can act on.
package llm

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Preset is a known provider the UI offers as a starting point.
type Preset struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	BaseURL  string `json:"baseUrl"`
	NeedsKey bool   `json:"needsKey"`
	KeyURL   string `json:"keyUrl,omitempty"` // where to get a key
	// Models is a suggested starting list; FetchModels replaces it with the real one.
	Models []Model `json:"models,omitempty"`
	// Dialect is what the provider's API needs beyond the OpenAI wire format, and
	// ReasoningControls the reasoning choices it offers (from the dialect).
	Dialect           Dialect           `json:"dialect"`
	ReasoningControls ReasoningControls `json:"reasoningControls"`
}

// Dialect is what a provider's API needs beyond the plain OpenAI wire format: whether a
// model's reasoning goes back in later requests, and which request fields control
// reasoning. It is a property of the provider, so the agent loop never special-cases one.
type Dialect struct {
	// ReasoningBack says where reasoning goes back in later requests ("" = never).
	ReasoningBack string `json:"reasoningBack,omitempty"`
	// Reasoning is the family of request fields that control reasoning ("" = none).
	Reasoning string `json:"reasoning,omitempty"`
	// NoStreamOptions leaves stream_options out: the API refuses fields it does not
	// document and reports usage at the end of a stream on its own (Mistral).
	NoStreamOptions bool `json:"noStreamOptions,omitempty"`
}

// ReasoningBackToolCalls sends every assistant message with tool calls back with its
// reasoning_content, an empty one included, and never a plain answer's: DeepSeek's
// thinking mode answers 400 without it, and its older reasoner refused it elsewhere.
const ReasoningBackToolCalls = "tool-calls"

// Reasoning control families: the request fields a provider reads.
const (
	ReasoningDeepSeek   = "deepseek"   // thinking {type}, reasoning_effort
	ReasoningQwen       = "qwen"       // enable_thinking, thinking_budget
	ReasoningOpenRouter = "openrouter" // reasoning {effort | max_tokens}
	ReasoningOpenAI     = "openai"     // reasoning_effort
	ReasoningZhipu      = "zhipu"      // thinking {type}
)

// Reasoning effort values a model or a conversation can pick; "" is the provider's
// default. Each family accepts some of them (ReasoningControls).
const (
	EffortOff     = "off"
	EffortOn      = "on"
	EffortMinimal = "minimal"
	EffortLow     = "low"
	EffortMedium  = "medium"
	EffortHigh    = "high"
	EffortXHigh   = "xhigh"
	EffortMax     = "max"
)

// ReasoningControls is what a provider lets a user choose about reasoning.
type ReasoningControls struct {
	Efforts []string `json:"efforts,omitempty"` // in display order
	Budget  bool     `json:"budget,omitempty"`  // a token budget for reasoning
}

// Controls returns the reasoning choices of a family (none for "").
func (d Dialect) Controls() ReasoningControls {
	switch d.Reasoning {
	case ReasoningDeepSeek:
		return ReasoningControls{Efforts: []string{EffortOff, EffortLow, EffortHigh, EffortMax}}
	case ReasoningQwen:
		return ReasoningControls{Efforts: []string{EffortOff, EffortOn}, Budget: true}
	case ReasoningOpenRouter:
		return ReasoningControls{Efforts: []string{EffortOff, EffortMinimal, EffortLow, EffortMedium, EffortHigh, EffortXHigh}, Budget: true}
	case ReasoningOpenAI:
		return ReasoningControls{Efforts: []string{EffortMinimal, EffortLow, EffortMedium, EffortHigh}}
	case ReasoningZhipu:
		return ReasoningControls{Efforts: []string{EffortOff, EffortOn}}
	}
	return ReasoningControls{}
}

// Reasoning is a model's or a conversation's reasoning choice; zero values leave the
// provider's default.
type Reasoning struct {
	Effort string `json:"effort,omitempty"`
	Budget int    `json:"budget,omitempty"` // tokens; 0 = the provider's default
}

// Over returns r with the fields o sets replaced (a conversation over its model).
func (r Reasoning) Over(o Reasoning) Reasoning {
	if o.Effort != "" {
		r.Effort = o.Effort
	}
	if o.Budget != 0 {
		r.Budget = o.Budget
	}
	return r
}

// MaxReasoningBudget bounds a reasoning budget (tokens).
const MaxReasoningBudget = 1 << 20

// CheckReasoning says why r is not a valid choice, or "" when it is.
func CheckReasoning(r Reasoning) string {
	switch r.Effort {
	case "", EffortOff, EffortOn, EffortMinimal, EffortLow, EffortMedium, EffortHigh, EffortXHigh, EffortMax:
	default:
		return fmt.Sprintf("unknown reasoning effort %q", shorten(r.Effort, 40))
	}
	if r.Budget < 0 || r.Budget > MaxReasoningBudget {
		return fmt.Sprintf("the reasoning budget must be between 0 and %d tokens", MaxReasoningBudget)
	}
	return ""
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// DialectFor is the dialect of a provider: its preset's, or for a custom endpoint the
// dialect of the preset whose host it points at (a DeepSeek URL entered by hand still
// needs its reasoning sent back).
func DialectFor(preset, baseURL string) Dialect {
	if p, ok := PresetByID(preset); ok && p.ID != PresetCustom {
		return p.Dialect
	}
	host := hostOf(baseURL)
	if host == "" {
		return Dialect{}
	}
	for _, p := range presets() {
		if p.BaseURL != "" && hostOf(p.BaseURL) == host {
			return p.Dialect
		}
	}
	return Dialect{}
}

func hostOf(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// PresetCustom is the preset id of any other OpenAI-compatible endpoint.
const PresetCustom = "custom"

// Presets lists the providers Cairn knows by name, in display order.
func Presets() []Preset {
	out := presets()
	for i := range out {
		out[i].ReasoningControls = out[i].Dialect.Controls()
	}
	return out
}

func presets() []Preset {
	m := func(id string) Model { return GuessModel(id) }
	return []Preset{
		{ID: "openai", Name: "OpenAI", BaseURL: "https://api.openai.com/v1", NeedsKey: true, KeyURL: "https://platform.openai.com/api-keys",
			Dialect: Dialect{Reasoning: ReasoningOpenAI},
			Models:  []Model{m("gpt-4.1"), m("gpt-4.1-mini"), m("gpt-4o"), m("o4-mini")}},
		{ID: "deepseek", Name: "DeepSeek", BaseURL: "https://api.deepseek.com/v1", NeedsKey: true, KeyURL: "https://platform.deepseek.com/api_keys",
			Dialect: Dialect{ReasoningBack: ReasoningBackToolCalls, Reasoning: ReasoningDeepSeek},
			Models:  []Model{m("deepseek-chat"), m("deepseek-reasoner")}},
		{ID: "mistral", Name: "Mistral AI", BaseURL: "https://api.mistral.ai/v1", NeedsKey: true, KeyURL: "https://console.mistral.ai/api-keys",
			Dialect: Dialect{NoStreamOptions: true},
			Models:  []Model{m("mistral-medium-latest"), m("magistral-medium-latest"), m("mistral-small-latest")}},
		{ID: "openrouter", Name: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", NeedsKey: true, KeyURL: "https://openrouter.ai/keys",
			Dialect: Dialect{Reasoning: ReasoningOpenRouter}},
		{ID: "moonshot", Name: "Moonshot (Kimi)", BaseURL: "https://api.moonshot.cn/v1", NeedsKey: true, KeyURL: "https://platform.moonshot.cn/console/api-keys",
			Models: []Model{m("kimi-k2-0905-preview"), m("moonshot-v1-128k")}},
		{ID: "zhipu", Name: "Zhipu GLM", BaseURL: "https://open.bigmodel.cn/api/paas/v4", NeedsKey: true, KeyURL: "https://open.bigmodel.cn/usercenter/apikeys",
			Dialect: Dialect{Reasoning: ReasoningZhipu},
			Models:  []Model{m("glm-4.5"), m("glm-4.5-air"), m("glm-4v-plus")}},
		{ID: "qwen", Name: "Qwen (DashScope)", BaseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1", NeedsKey: true, KeyURL: "https://dashscope.console.aliyun.com/apiKey",
			Dialect: Dialect{Reasoning: ReasoningQwen},
			Models:  []Model{m("qwen-plus"), m("qwen-max"), m("qwen-turbo"), m("qwen-vl-max")}},
		{ID: "siliconflow", Name: "SiliconFlow", BaseURL: "https://api.siliconflow.cn/v1", NeedsKey: true, KeyURL: "https://cloud.siliconflow.cn/account/ak",
			Models: []Model{m("deepseek-ai/DeepSeek-V3"), m("Qwen/Qwen2.5-72B-Instruct")}},
		{ID: "ollama", Name: "Ollama", BaseURL: "http://127.0.0.1:11434/v1", NeedsKey: false},
		{ID: "lmstudio", Name: "LM Studio", BaseURL: "http://127.0.0.1:1234/v1", NeedsKey: false},
		{ID: PresetCustom, Name: "Custom (OpenAI-compatible)", BaseURL: "", NeedsKey: false},
	}
}

// PresetByID returns a preset; ok is false for an unknown id.
func PresetByID(id string) (Preset, bool) {
	for _, p := range Presets() {
		if p.ID == id {
			return p, true
		}
	}
	return Preset{}, false
}

// Model is one model of a provider with the capabilities the agent loop and the tool
// system need. Every field but ID is editable by the user.
type Model struct {
	ID            string `json:"id"`
	ContextWindow int    `json:"contextWindow"` // tokens; 0 = unknown
	SupportsTools bool   `json:"supportsTools"`
	Vision        bool   `json:"vision"`
	Reasoning     bool   `json:"reasoning"`
	Source        string `json:"source"` // "fetched" | "manual" | "preset"
	// ReasoningEffort and ReasoningBudget are the user's reasoning choice for the model,
	// sent only to providers whose dialect has the control ("" / 0 = the default).
	ReasoningEffort string `json:"reasoningEffort,omitempty"`
	ReasoningBudget int    `json:"reasoningBudget,omitempty"`
	// ListPrice is the price the provider's model list gives (OpenRouter's pricing),
	// stored with the list and replaced by each fetch.
	ListPrice *Price `json:"listPrice,omitempty"`
	// Price is the price that applies (the user's, else ListPrice, else Cairn's default)
	// and where it comes from; filled in when the provider is read, never stored.
	Price *ModelPrice `json:"price,omitempty"`
}

// ReasoningChoice is the model's reasoning choice.
func (m Model) ReasoningChoice() Reasoning {
	return Reasoning{Effort: m.ReasoningEffort, Budget: m.ReasoningBudget}
}

// Model sources.
const (
	SourceFetched = "fetched"
	SourceManual  = "manual"
	SourcePreset  = "preset"
)

// Provider is a configured endpoint. The API key is never part of it: KeySet and
// KeyLast4 say what a window may know.
type Provider struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Preset       string  `json:"preset"`
	BaseURL      string  `json:"baseUrl"`
	Models       []Model `json:"models"`
	DefaultModel string  `json:"defaultModel"`
	NeedsKey     bool    `json:"needsKey"`
	KeySet       bool    `json:"keySet"`
	KeyLast4     string  `json:"keyLast4,omitempty"`
	// Dialect and ReasoningControls follow from the preset and base URL (DialectFor);
	// they are filled in when the provider is read, never stored.
	Dialect           Dialect           `json:"dialect"`
	ReasoningControls ReasoningControls `json:"reasoningControls"`
	// Headers go with every request; Proxy is system, none or a proxy URL.
	Headers   []Header `json:"headers,omitempty"`
	Proxy     string   `json:"proxy,omitempty"`
	CreatedAt int64    `json:"createdAt"`
	UpdatedAt int64    `json:"updatedAt"`
}

// Model returns the provider's entry for id, or a guessed one when the user typed a model
// the list does not have.
func (p Provider) Model(id string) Model {
	for _, m := range p.Models {
		if m.ID == id {
			return m
		}
	}
	g := GuessModel(id)
	g.Source = SourceManual
	return g
}

// ProviderInput is what a window sends to create (ID empty) or update a provider. APIKey
// is stored in the secret store when non-empty and never read back; ClearKey removes it.
// KeepKey is the user's word that the stored key may go to a base URL on another host
// (scheme, host or port): without it, or a new key, such a change is refused.
type ProviderInput struct {
	ID           string  `json:"id,omitempty"`
	Name         string  `json:"name"`
	Preset       string  `json:"preset,omitempty"`
	BaseURL      string  `json:"baseUrl"`
	Models       []Model `json:"models,omitempty"`
	DefaultModel string  `json:"defaultModel,omitempty"`
	APIKey       string  `json:"apiKey,omitempty"`
	ClearKey     bool    `json:"clearKey,omitempty"`
	KeepKey      bool    `json:"keepKey,omitempty"`
	// Headers replace the custom headers (nil keeps them; a secret one without a value
	// keeps its stored value). Proxy: system, none or a URL ("" keeps it, system if new).
	Headers []Header `json:"headers,omitempty"`
	Proxy   string   `json:"proxy,omitempty"`
}

// SecretName is the secret-store name of a provider's API key.
func SecretName(providerID string) string { return "provider." + providerID + ".apiKey" }

type capRule struct {
	re  *regexp.Regexp
	ctx int
	// tools, vision, reasoning as 0 = leave, 1 = yes, -1 = no
	tools, vision, reasoning int
}

// capRules are matched in order against a lower-case model id; the first rule that sets a
// field wins for that field. They are guesses the user can correct in Settings.
var capRules = []capRule{
	{re: regexp.MustCompile(`embed|whisper|tts|dall-e|moderation|rerank|bge-|text-embedding`), tools: -1},
	{re: regexp.MustCompile(`deepseek-reasoner|deepseek-r1|qwq|-thinking|o1|o3|o4-mini|gpt-5|r1-distill|magistral`), reasoning: 1},
	{re: regexp.MustCompile(`magistral|mistral-(medium|small|large)`), ctx: 131072, tools: 1},
	{re: regexp.MustCompile(`deepseek`), ctx: 131072, tools: 1},
	{re: regexp.MustCompile(`gpt-4\.1`), ctx: 1047576, tools: 1, vision: 1},
	{re: regexp.MustCompile(`gpt-5`), ctx: 400000, tools: 1, vision: 1},
	{re: regexp.MustCompile(`gpt-4o|gpt-5|o4-mini|o3`), ctx: 128000, tools: 1, vision: 1},
	{re: regexp.MustCompile(`gpt-4-turbo`), ctx: 128000, tools: 1, vision: 1},
	{re: regexp.MustCompile(`gpt-3\.5`), ctx: 16385, tools: 1},
	{re: regexp.MustCompile(`kimi-k2`), ctx: 262144, tools: 1},
	{re: regexp.MustCompile(`moonshot-v1-128k`), ctx: 131072, tools: 1},
	{re: regexp.MustCompile(`moonshot-v1-32k`), ctx: 32768, tools: 1},
	{re: regexp.MustCompile(`moonshot-v1-8k`), ctx: 8192, tools: 1},
	{re: regexp.MustCompile(`glm-4v|glm-4\.5v|qwen-vl|qwen2\.5-vl|vl-|vision|llava|pixtral|gemma3`), vision: 1},
	{re: regexp.MustCompile(`glm-4\.5|glm-4\.6`), ctx: 131072, tools: 1},
	{re: regexp.MustCompile(`glm-4`), ctx: 128000, tools: 1},
	{re: regexp.MustCompile(`qwen-max|qwen-plus|qwen-turbo|qwen3|qwen2\.5`), ctx: 131072, tools: 1},
	{re: regexp.MustCompile(`claude`), ctx: 200000, tools: 1, vision: 1},
	{re: regexp.MustCompile(`gemini`), ctx: 1048576, tools: 1, vision: 1},
	{re: regexp.MustCompile(`grok-4`), ctx: 256000, tools: 1},
	{re: regexp.MustCompile(`grok-3`), ctx: 131072, tools: 1},
	{re: regexp.MustCompile(`llama-?3\.[1-3]|mistral-nemo|gemma-?3|command-r`), ctx: 131072, tools: 1},
	{re: regexp.MustCompile(`llama3|llama-3|mistral|mixtral|qwen`), ctx: 32768, tools: 1},
}

// GuessModel fills in capabilities for a model id from well-known name patterns. Unknown
// models are assumed to support tools: a provider that refuses says so, and the error
// points to the switch.
func GuessModel(id string) Model {
	m := Model{ID: id, Source: SourcePreset}
	low := strings.ToLower(id)
	var ctxSet, toolsSet, visionSet, reasoningSet bool
	for _, r := range capRules {
		if !r.re.MatchString(low) {
			continue
		}
		if r.ctx != 0 && !ctxSet {
			m.ContextWindow, ctxSet = r.ctx, true
		}
		if r.tools != 0 && !toolsSet {
			m.SupportsTools, toolsSet = r.tools > 0, true
		}
		if r.vision != 0 && !visionSet {
			m.Vision, visionSet = r.vision > 0, true
		}
		if r.reasoning != 0 && !reasoningSet {
			m.Reasoning, reasoningSet = r.reasoning > 0, true
		}
	}
	if !toolsSet {
		m.SupportsTools = true
	}
	return m
}

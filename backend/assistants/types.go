// Package assistants is saved presets a conversation starts from: a name and an icon,
// instructions (the conversation's system prompt), a model, request parameters, toolsets,
// knowledge bases and skills. A few useful ones are built in (builtin.go): they cannot be
// changed or deleted, only copied or hidden.
package assistants

// Topic is the events topic of the assistant list; TypeChanged carries the whole List.
const (
	Topic       = "assistants"
	TypeChanged = "assistants:changed"
)

// Assistant is one preset as the window and the CLI see it.
type Assistant struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Icon is one of Icons (an emoji).
	Icon        string `json:"icon"`
	Description string `json:"description"`
	// Instructions become the system prompt of a conversation started from it.
	Instructions string `json:"instructions"`
	ProviderID   string `json:"providerId"` // "" = the default provider
	Model        string `json:"model"`      // "" = the provider's default model
	// Temperature and TopP: null = the provider's default.
	Temperature *float64 `json:"temperature"`
	TopP        *float64 `json:"topP"`
	// MaxTokens bounds each answer (0 = the model's default); ContextMessages is how many
	// earlier messages a request carries (0 = all).
	MaxTokens       int      `json:"maxTokens"`
	ContextMessages int      `json:"contextMessages"`
	Toolsets        []string `json:"toolsets"`
	// KBs are knowledge base ids the conversation attaches; Skills are skill names the
	// conversation turns on (others follow their global switch).
	KBs    []string `json:"kbs"`
	Skills []string `json:"skills"`
	// Builtin assistants come with Cairn: copy one to change it.
	Builtin bool `json:"builtin"`
	// Hidden ones are left out of the New chat picker.
	Hidden    bool  `json:"hidden"`
	CreatedAt int64 `json:"createdAt"`
	UpdatedAt int64 `json:"updatedAt"`
}

// Input is what a user writes of an assistant (SaveAssistant); Toolsets, KBs and Skills
// are taken as given (nil = none).
type Input struct {
	Name            string   `json:"name"`
	Icon            string   `json:"icon"`
	Description     string   `json:"description,omitempty"`
	Instructions    string   `json:"instructions,omitempty"`
	ProviderID      string   `json:"providerId,omitempty"`
	Model           string   `json:"model,omitempty"`
	Temperature     *float64 `json:"temperature,omitempty"`
	TopP            *float64 `json:"topP,omitempty"`
	MaxTokens       int      `json:"maxTokens,omitempty"`
	ContextMessages int      `json:"contextMessages,omitempty"`
	Toolsets        []string `json:"toolsets,omitempty"`
	KBs             []string `json:"kbs,omitempty"`
	Skills          []string `json:"skills,omitempty"`
}

// List is every assistant, built-in first, stamped with the topic's seq.
type List struct {
	Seq        uint64      `json:"seq"`
	Assistants []Assistant `json:"assistants"`
}

// Link says which assistant a conversation was started from: the assistant as it is now,
// or, once it is deleted, its name and icon when the conversation started.
type Link struct {
	SessionID   string `json:"sessionId"`
	AssistantID string `json:"assistantId"`
	Name        string `json:"name"`
	Icon        string `json:"icon"`
	Builtin     bool   `json:"builtin"`
	// Deleted is set when the assistant no longer exists.
	Deleted bool `json:"deleted"`
}

// Started is a conversation started from an assistant, with what of the assistant could
// not be applied because it no longer exists (a deleted knowledge base or skill).
type Started struct {
	SessionID string `json:"sessionId"`
	// MissingKBs and MissingSkills were named by the assistant and are gone.
	MissingKBs    []string `json:"missingKbs"`
	MissingSkills []string `json:"missingSkills"`
}

// Icons are the icons an assistant may have: a small set the window offers as buttons.
func Icons() []string {
	return []string{"🤖", "🌐", "✍️", "🧑‍💻", "🔎", "📚", "💡", "🎨", "🧮", "📝", "🗣️", "⚖️", "🩺", "🎓", "📈", "🧭"}
}

// Limits on what an assistant holds.
const (
	MaxName         = 64
	MaxDescription  = 200
	MaxInstructions = 32_000
	MaxRefs         = 64
)

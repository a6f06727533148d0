package events

// Topics and event types shared by the backend and every window.
const (
	TopicSettings  = "settings"
	TopicSessions  = "sessions"
	TopicApprovals = "approvals"
	TopicMCP       = "mcp"
	// TopicElicitations carries MCP servers' questions to the user (backend/elicit).
	TopicElicitations = "elicitations"

	TypeSettingsChanged = "settings:changed"
	TypeSecretsChanged  = "secrets:changed"
	// TypeResync tells a window it lost events and must reload its snapshots.
	TypeResync = "resync"
)

// SessionTopic is the topic of one session's parts and state.
func SessionTopic(id string) string { return "session:" + id }

package apperr

// Code is a stable identifier; its i18n key is "errors.<code>" in every locale file.
type Code string

type def struct{ action *Action }

func openSettings(section string) *Action { return &Action{Kind: "open-settings", Target: section} }

var retry = &Action{Kind: "retry"}

// The catalogue: one line per code a user can see. The locale files in
// frontend/src/i18n/locales must have exactly these keys under "errors".
const (
	Unknown          Code = "unknown"
	Internal         Code = "internal"
	InvalidArgument  Code = "invalid_argument"
	NotFound         Code = "not_found"
	Canceled         Code = "canceled"
	DBOpenFailed     Code = "db_open_failed"
	DBTooNew         Code = "db_too_new"
	DBMigrateFailed  Code = "db_migrate_failed"
	DataDirFailed    Code = "data_dir_failed"
	SettingUnknown   Code = "setting_unknown"
	SettingInvalid   Code = "setting_invalid"
	SecretNameBad    Code = "secret_name_invalid"
	SecretStoreFail  Code = "secret_store_failed"
	SecretEmpty      Code = "secret_empty"
	Unauthorized     Code = "unauthorized"
	OriginRejected   Code = "origin_rejected"
	BodyTooLarge     Code = "body_too_large"
	MethodUnknown    Code = "method_unknown"
	BadRequestBody   Code = "bad_request_body"
	RemoteNotAllowed Code = "remote_not_allowed"
	ListenFailed     Code = "listen_failed"
	NoDesktop        Code = "no_desktop_build"

	// Providers and the model (CHAT-1, CHAT-2).
	ProviderNotFound     Code = "provider_not_found"
	ProviderExists       Code = "provider_exists"
	ProviderInvalid      Code = "provider_invalid"
	NoProvider           Code = "no_provider_configured"
	ModelAuthFailed      Code = "model_auth_failed"
	ModelRateLimited     Code = "model_rate_limited"
	ModelUnreachable     Code = "model_unreachable"
	ModelNotFound        Code = "model_not_found"
	ModelContextTooLong  Code = "model_context_too_long"
	ModelToolsUnsupp     Code = "model_tools_unsupported"
	ModelStreamMalformed Code = "model_stream_malformed"
	ModelServerError     Code = "model_server_error"
	ModelBadRequest      Code = "model_bad_request"
	MaxRoundsReached     Code = "max_tool_rounds_reached"
	SessionNotFound      Code = "session_not_found"
	SessionBusy          Code = "session_busy"
	MessageNotFound      Code = "message_not_found"

	// The tool system (TOOL-1..5).
	ToolNotFound        Code = "tool_not_found"
	ToolArgsInvalidJSON Code = "tool_args_invalid_json"
	ToolArgsInvalid     Code = "tool_args_invalid"
	ToolInputRejected   Code = "tool_input_rejected"
	ToolStoppedByHook   Code = "tool_stopped_by_hook"
	ToolPermissionDeny  Code = "tool_permission_denied"
	ToolFailed          Code = "tool_failed"
	ToolStopped         Code = "tool_stopped"
	ToolTimeout         Code = "tool_timeout"
	ToolNotInspected    Code = "tool_not_inspected"
	ToolNeedsDirectCall Code = "tool_requires_direct_call"
	ToolResultSpill     Code = "tool_result_spill_failed"
)

var catalogue = map[Code]def{
	Unknown:          {},
	Internal:         {},
	InvalidArgument:  {},
	NotFound:         {},
	Canceled:         {},
	DBOpenFailed:     {action: openSettings("general")},
	DBTooNew:         {action: openSettings("about")},
	DBMigrateFailed:  {action: openSettings("about")},
	DataDirFailed:    {action: openSettings("general")},
	SettingUnknown:   {},
	SettingInvalid:   {},
	SecretNameBad:    {},
	SecretStoreFail:  {action: openSettings("about")},
	SecretEmpty:      {},
	Unauthorized:     {},
	OriginRejected:   {},
	BodyTooLarge:     {},
	MethodUnknown:    {},
	BadRequestBody:   {},
	RemoteNotAllowed: {},
	ListenFailed:     {},
	NoDesktop:        {},

	ProviderNotFound:     {action: openSettings("providers")},
	ProviderExists:       {},
	ProviderInvalid:      {action: openSettings("providers")},
	NoProvider:           {action: openSettings("providers")},
	ModelAuthFailed:      {action: openSettings("providers")},
	ModelRateLimited:     {action: retry},
	ModelUnreachable:     {action: retry},
	ModelNotFound:        {action: openSettings("providers")},
	ModelContextTooLong:  {},
	ModelToolsUnsupp:     {action: openSettings("providers")},
	ModelStreamMalformed: {action: retry},
	ModelServerError:     {action: retry},
	ModelBadRequest:      {},
	MaxRoundsReached:     {action: openSettings("general")},
	SessionNotFound:      {},
	SessionBusy:          {},
	MessageNotFound:      {},

	ToolNotFound:        {},
	ToolArgsInvalidJSON: {},
	ToolArgsInvalid:     {},
	ToolInputRejected:   {},
	ToolStoppedByHook:   {},
	ToolPermissionDeny:  {action: openSettings("permissions")},
	ToolFailed:          {},
	ToolStopped:         {},
	ToolTimeout:         {action: retry},
	ToolNotInspected:    {},
	ToolNeedsDirectCall: {},
	ToolResultSpill:     {},
}

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
	DataDirBusy      Code = "data_dir_busy"
	OwnerGone        Code = "owner_gone"
	SettingUnknown   Code = "setting_unknown"
	SettingInvalid   Code = "setting_invalid"
	SettingRange     Code = "setting_out_of_range"
	SettingChoice    Code = "setting_not_a_choice"
	SettingNotInt    Code = "setting_not_integer"
	SettingNotBool   Code = "setting_not_boolean"
	SettingNotText   Code = "setting_not_text"
	SettingTooLong   Code = "setting_too_long"
	SecretNameBad    Code = "secret_name_invalid"
	SecretStoreFail  Code = "secret_store_failed"
	SecretEmpty      Code = "secret_empty"
	SecretNotKnown   Code = "secret_name_unknown"
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
	ProviderKeyMissing   Code = "provider_key_missing"
	ProviderKeyInvalid   Code = "provider_key_invalid"
	ProviderKeyStoredBad Code = "provider_key_stored_invalid"
	ProviderPortInvalid  Code = "provider_port_invalid"
	ProviderKeyHostMoved Code = "provider_key_host_changed"
	PriceInvalid         Code = "price_invalid"
	PriceCurrencyInvalid Code = "price_currency_invalid"
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

	// A provider that stalls (and the setting of its limits), and requests a provider
	// rejects for a reason Cairn can fix.
	ModelFirstByteTimeout       Code = "model_first_byte_timeout"
	ModelStreamStalled          Code = "model_stream_stalled"
	ModelReasoningRequired      Code = "model_reasoning_required"
	ModelReasoningOptionRefused Code = "model_reasoning_option_refused"
	ModelFieldRefused           Code = "model_field_refused"
	SettingNotDuration          Code = "setting_not_duration"

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
	// ToolNeedsDirectCall is no longer produced (tool_invoke runs gated tools through the
	// same approval); it stays so that errors stored in older conversations still read.
	ToolNeedsDirectCall Code = "tool_requires_direct_call"
	ToolResultSpill     Code = "tool_result_spill_failed"

	// Approval and permissions (APPR-1..3).
	ApprovalNotFound          Code = "approval_not_found"
	ApprovalAlreadyDecided    Code = "approval_already_decided"
	ApprovalInterrupted       Code = "approval_interrupted"
	ApprovalDecisionInvalid   Code = "approval_decision_invalid"
	ApprovalRuleUnavailable   Code = "approval_rule_unavailable"
	ApprovalResumeUnavailable Code = "approval_resume_unavailable"
	PermissionRuleInvalid     Code = "permission_rule_invalid"
	PermissionRuleNotFound    Code = "permission_rule_not_found"
	PermissionModeInvalid     Code = "permission_mode_invalid"

	// MCP servers (MCP-1..4).
	MCPCommandNotFound Code = "mcp_command_not_found"
	MCPUnreachable     Code = "mcp_server_unreachable"
	MCPExited          Code = "mcp_server_exited"
	MCPConnectTimeout  Code = "mcp_connect_timeout"
	MCPConnectFailed   Code = "mcp_connect_failed"
	MCPAuthRequired    Code = "mcp_auth_required"
	MCPAuthRejected    Code = "mcp_auth_rejected"
	MCPAuthFailed      Code = "mcp_auth_failed"
	MCPAuthTimeout     Code = "mcp_auth_timeout"
	MCPAuthUnsupported Code = "mcp_auth_unsupported"
	MCPServerNotFound  Code = "mcp_server_not_found"
	MCPServerDisabled  Code = "mcp_server_disabled"
	MCPServerExists    Code = "mcp_server_exists"
	MCPServerInvalid   Code = "mcp_server_invalid"
	MCPImportInvalid   Code = "mcp_import_invalid"
	MCPImportTooMany   Code = "mcp_import_too_many"
	// MCPCallFailed: the server answered a tools/call with a JSON-RPC error (its own
	// words in message), as opposed to a result with isError.
	MCPCallFailed Code = "mcp_call_failed"
	// MCPCredentialNotMoved is a warning, not a failure: the save went through.
	MCPCredentialNotMoved Code = "mcp_credential_not_moved"
	FileSaveFailed        Code = "file_save_failed"
	// NoFolderDialog: the window has no native folder picker (`cairn serve`'s browser
	// cannot give a folder's path); the window has the path typed instead.
	NoFolderDialog Code = "no_folder_dialog"

	// MCPCallTimeout: a tool call ran past its server's call timeout (mcp.Server.CallTimeoutMs).
	MCPCallTimeout Code = "mcp_call_timeout"
	// MCPSandboxUnavailable: a server set to run sandboxed cannot, as no sandbox works
	// here; MCPSandboxNetwork: its domain list needs the strong level, which this machine
	// does not give. Neither starts it unsandboxed.
	MCPSandboxUnavailable Code = "mcp_sandbox_unavailable"
	MCPSandboxNetwork     Code = "mcp_sandbox_network"

	// Remote images in answers and tool results, loaded on the user's click.
	ImageURLInvalid     Code = "image_url_invalid"
	ImageAddressRefused Code = "image_address_refused"
	ImageFetchFailed    Code = "image_fetch_failed"
	ImageNotAnImage     Code = "image_not_an_image"
	ImageTooLarge       Code = "image_too_large"

	// Reading a web page for the model (parse_link / web_fetch, `cairn fetch`).
	ParseLinkFailed      Code = "parse_link_failed"
	FetchBlockedAddress  Code = "fetch_blocked_address"
	FetchTooLarge        Code = "fetch_too_large"
	FetchUnsupportedType Code = "fetch_unsupported_type"

	// Documents read for knowledge bases and attachments.
	DocUnsupportedType  Code = "doc_unsupported_type"
	DocEncrypted        Code = "doc_encrypted"
	DocTooLarge         Code = "doc_too_large"
	DocUnpackedTooLarge Code = "doc_unpacked_too_large"
	DocCorrupt          Code = "doc_corrupt"
	DocNoText           Code = "doc_no_text"

	// Files attached to a message.
	AttachmentNeedsVision Code = "attachment_needs_vision"
	AttachmentTooLarge    Code = "attachment_too_large"
	AttachmentNotFound    Code = "attachment_not_found"
	AttachmentUnreadable  Code = "attachment_unreadable"

	// Knowledge bases.
	KBNotFound        Code = "kb_not_found"
	KBNameTaken       Code = "kb_name_taken"
	KBFileNotFound    Code = "kb_file_not_found"
	KBAddFailed       Code = "kb_add_failed"
	KBIngestFailed    Code = "kb_ingest_failed"
	KBIngestCancelled Code = "kb_ingest_cancelled"
	KBEmbeddingFailed Code = "kb_embedding_failed"
	KBEmbeddingDims   Code = "kb_embedding_dims"
	KBOpenFailed      Code = "kb_open_failed"

	// Knowledge base lifecycle: folders, reranking, uploads.
	KBFolderNotFound Code = "kb_folder_not_found"
	KBRerankFailed   Code = "kb_rerank_failed"
	KBUploadInvalid  Code = "kb_upload_invalid"

	// Agent skills.
	SkillNotFound         Code = "skill_not_found"
	SkillInvalid          Code = "skill_invalid"
	SkillOff              Code = "skill_off"
	SkillResourceInvalid  Code = "skill_resource_invalid"
	SkillResourceNotFound Code = "skill_resource_not_found"
	SkillImportInvalid    Code = "skill_import_invalid"
	SkillImportTooLarge   Code = "skill_import_too_large"
	SkillExists           Code = "skill_exists"

	// Web search providers and the pages they read (WEB-1, WEB-2).
	TavilyKeyRequired      Code = "tavily_api_key_required"
	SearchKeyRequired      Code = "search_api_key_required"
	SearchKeyInvalid       Code = "search_api_key_invalid"
	SearchRateLimited      Code = "search_rate_limited"
	SearchUnreachable      Code = "search_provider_unreachable"
	SearchBadResponse      Code = "search_response_invalid"
	SearchRejected         Code = "search_request_rejected"
	SearxngJSONDisabled    Code = "searxng_json_disabled"
	SearchEndpointRequired Code = "search_endpoint_required"
	SearchEndpointInvalid  Code = "search_endpoint_invalid"
	SearchProviderUnknown  Code = "search_provider_unknown"
	SearchProxyInvalid     Code = "search_proxy_invalid"
	ParseLinkUnsupported   Code = "parse_link_unsupported"

	// Map services of the location tool (Amap, Google Maps).
	LocationKeyRequired     Code = "location_key_required"
	LocationKeyInvalid      Code = "location_key_invalid"
	LocationRateLimited     Code = "location_rate_limited"
	LocationUnreachable     Code = "location_unreachable"
	LocationBadResponse     Code = "location_response_invalid"
	LocationRejected        Code = "location_request_rejected"
	LocationNotFound        Code = "location_not_found"
	LocationEndpointInvalid Code = "location_endpoint_invalid"

	// The web search fallback setting names providers Cairn does not have.
	SearchFallbackUnknown Code = "search_fallback_unknown"

	// One backend per data directory: a desktop window that could not attach to it.
	DesktopAttachFailed Code = "desktop_attach_failed"

	// Site icons of search results asked for while the user has them off.
	FaviconsOff Code = "favicons_off"

	// MCP servers asking the user for input (elicitation).
	ElicitationNotFound        Code = "elicitation_not_found"
	ElicitationAlreadyAnswered Code = "elicitation_already_answered"
	ElicitationInvalid         Code = "elicitation_answer_invalid"
	ElicitationActionInvalid   Code = "elicitation_action_invalid"

	// Your data, out and back (backend/transfer): export, import, backup, restore.
	ExportFormatUnknown      Code = "export_format_unknown"
	ImportInvalid            Code = "import_invalid"
	ImportNewerFormat        Code = "import_newer_format"
	BackupFailed             Code = "backup_failed"
	BackupCorrupt            Code = "backup_corrupt"
	BackupNewer              Code = "backup_newer"
	BackupPassphraseRequired Code = "backup_passphrase_required"
	BackupPassphraseWrong    Code = "backup_passphrase_wrong"
	RestoreOwnerRunning      Code = "restore_owner_running"
	RestoreFailed            Code = "restore_failed"

	// MCPRequestFailed: the server refused a resources/* or prompts/* request (its own
	// words in message; what names the request, e.g. "resources/read demo://x").
	MCPRequestFailed Code = "mcp_request_failed"
	// MCPResourceEmpty: a resource attached to a message has no text and no blob.
	MCPResourceEmpty Code = "mcp_resource_empty"

	// Sub-agents: an unknown type (params: type, known), a coder asked for outside a task
	// session, a sub-agent asking for one of its own, a budget the child used up (rounds,
	// tokens, wall time: params limit), background runs before background tasks exist, a
	// type the user defines that cannot be kept (params: message).
	AgentTypeUnknown       Code = "agent_type_unknown"
	AgentTypeNeedsTask     Code = "agent_type_needs_task"
	AgentNested            Code = "agent_nested"
	AgentTokenBudget       Code = "agent_token_budget"
	AgentTimeBudget        Code = "agent_time_budget"
	AgentBackgroundMissing Code = "agent_background_unavailable"
	AgentTypeInvalid       Code = "agent_type_invalid"
	AgentRunNotFound       Code = "agent_run_not_found"

	// Task mode's sandbox tools: a chat session asked for a workspace, a folder that
	// cannot be one, no sandbox on this machine while running unsandboxed is off.
	SandboxTaskOnly     Code = "sandbox_task_only"
	SandboxWorkspaceBad Code = "sandbox_workspace_invalid"
	SandboxUnavailable  Code = "sandbox_unavailable"

	// Assistants (saved presets a conversation starts from).
	AssistantNotFound       Code = "assistant_not_found"
	AssistantNameRequired   Code = "assistant_name_required"
	AssistantNameTaken      Code = "assistant_name_taken"
	AssistantTooLong        Code = "assistant_too_long"
	AssistantIconUnknown    Code = "assistant_icon_unknown"
	AssistantParamRange     Code = "assistant_param_out_of_range"
	AssistantToolsetUnknown Code = "assistant_toolset_unknown"
	AssistantBuiltin        Code = "assistant_builtin"

	// Background tasks: an id that is no task of the calling session, a session that
	// already runs as many tasks as it may.
	TaskNotFound Code = "task_not_found"
	TaskLimit    Code = "task_limit"
)

var catalogue = map[Code]def{
	AssistantNotFound:       {action: openSettings("assistants")},
	AssistantNameRequired:   {},
	AssistantNameTaken:      {},
	AssistantTooLong:        {},
	AssistantIconUnknown:    {},
	AssistantParamRange:     {},
	AssistantToolsetUnknown: {},
	AssistantBuiltin:        {},
	TaskNotFound:            {},
	TaskLimit:               {},
	SandboxTaskOnly:         {},
	SandboxWorkspaceBad:     {},
	SandboxUnavailable:      {action: openSettings("sandbox")},
	FileSaveFailed:          {action: retry},
	NoFolderDialog:          {},
	Unknown:                 {},
	Internal:                {},
	InvalidArgument:         {},
	NotFound:                {},
	Canceled:                {},
	DBOpenFailed:            {action: openSettings("general")},
	DBTooNew:                {action: openSettings("about")},
	DBMigrateFailed:         {action: openSettings("about")},
	DataDirFailed:           {action: openSettings("general")},
	DataDirBusy:             {},
	OwnerGone:               {action: retry},
	SettingUnknown:          {},
	SettingInvalid:          {},
	SettingRange:            {},
	SettingChoice:           {},
	SettingNotInt:           {},
	SettingNotBool:          {},
	SettingNotText:          {},
	SettingTooLong:          {},
	SecretNameBad:           {},
	SecretStoreFail:         {action: openSettings("about")},
	SecretEmpty:             {},
	SecretNotKnown:          {},
	Unauthorized:            {},
	OriginRejected:          {},
	BodyTooLarge:            {},
	MethodUnknown:           {},
	BadRequestBody:          {},
	RemoteNotAllowed:        {},
	ListenFailed:            {},
	NoDesktop:               {},

	ProviderNotFound:     {action: openSettings("providers")},
	ProviderExists:       {},
	ProviderInvalid:      {action: openSettings("providers")},
	NoProvider:           {action: openSettings("providers")},
	ProviderKeyMissing:   {action: openSettings("providers")},
	ProviderKeyInvalid:   {action: openSettings("providers")},
	ProviderKeyStoredBad: {action: openSettings("providers")},
	ProviderPortInvalid:  {action: openSettings("providers")},
	ProviderKeyHostMoved: {},
	PriceInvalid:         {},
	PriceCurrencyInvalid: {},
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

	ModelFirstByteTimeout:       {action: retry},
	ModelStreamStalled:          {action: retry},
	ModelReasoningRequired:      {action: openSettings("providers")},
	ModelReasoningOptionRefused: {action: openSettings("providers")},
	ModelFieldRefused:           {action: openSettings("providers")},
	SettingNotDuration:          {},

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

	ApprovalNotFound:          {},
	ApprovalAlreadyDecided:    {},
	ApprovalInterrupted:       {},
	ApprovalDecisionInvalid:   {},
	ApprovalRuleUnavailable:   {},
	ApprovalResumeUnavailable: {},
	PermissionRuleInvalid:     {action: openSettings("permissions")},
	PermissionRuleNotFound:    {action: openSettings("permissions")},
	PermissionModeInvalid:     {action: openSettings("permissions")},

	MCPCommandNotFound:    {action: openSettings("mcp")},
	MCPUnreachable:        {action: retry},
	MCPExited:             {action: openSettings("mcp")},
	MCPConnectTimeout:     {action: retry},
	MCPConnectFailed:      {action: openSettings("mcp")},
	MCPAuthRequired:       {action: openSettings("mcp")}, // a server's status carries {kind: "mcp-sign-in", target: <serverId>}
	MCPAuthRejected:       {action: openSettings("mcp")},
	MCPAuthFailed:         {action: openSettings("mcp")}, // with a server: {kind: "mcp-sign-in", target: <serverId>}
	MCPAuthTimeout:        {action: openSettings("mcp")}, // with a server: {kind: "mcp-sign-in", target: <serverId>}
	MCPAuthUnsupported:    {action: openSettings("mcp")},
	MCPServerNotFound:     {},
	MCPServerDisabled:     {action: openSettings("mcp")},
	MCPServerExists:       {},
	MCPServerInvalid:      {},
	MCPImportInvalid:      {},
	MCPImportTooMany:      {},
	MCPCallFailed:         {},
	MCPCredentialNotMoved: {},
	MCPCallTimeout:        {action: openSettings("mcp")},
	MCPSandboxUnavailable: {action: openSettings("mcp")},
	MCPSandboxNetwork:     {action: openSettings("mcp")},

	ImageURLInvalid:     {},
	ImageAddressRefused: {},
	ImageFetchFailed:    {action: retry},
	ImageNotAnImage:     {},
	ImageTooLarge:       {},

	ParseLinkFailed:      {action: retry},
	FetchBlockedAddress:  {action: openSettings("web-search")}, // where private hosts are allowed
	FetchTooLarge:        {},
	FetchUnsupportedType: {},

	DocUnsupportedType:  {},
	DocEncrypted:        {},
	DocTooLarge:         {},
	DocUnpackedTooLarge: {},
	DocCorrupt:          {},
	DocNoText:           {},

	AttachmentNeedsVision: {action: openSettings("providers")}, // pick a model that can see
	AttachmentTooLarge:    {},
	AttachmentNotFound:    {},
	AttachmentUnreadable:  {},

	KBNotFound:        {},
	KBNameTaken:       {},
	KBFileNotFound:    {},
	KBAddFailed:       {},
	KBIngestFailed:    {action: retry},
	KBIngestCancelled: {action: retry},
	KBEmbeddingFailed: {action: retry},
	KBEmbeddingDims:   {},
	KBOpenFailed:      {},

	KBFolderNotFound: {},
	KBRerankFailed:   {action: retry},
	KBUploadInvalid:  {},

	SkillNotFound:         {action: openSettings("skills")},
	SkillInvalid:          {action: openSettings("skills")},
	SkillOff:              {action: openSettings("skills")},
	SkillResourceInvalid:  {},
	SkillResourceNotFound: {},
	SkillImportInvalid:    {},
	SkillImportTooLarge:   {},
	SkillExists:           {},

	TavilyKeyRequired:      {action: openSettings("web-search")},
	SearchKeyRequired:      {action: openSettings("web-search")},
	SearchKeyInvalid:       {action: openSettings("web-search")},
	SearchRateLimited:      {action: retry},
	SearchUnreachable:      {action: retry},
	SearchBadResponse:      {action: openSettings("web-search")},
	SearchRejected:         {action: openSettings("web-search")},
	SearxngJSONDisabled:    {action: openSettings("web-search")},
	SearchEndpointRequired: {action: openSettings("web-search")},
	SearchEndpointInvalid:  {action: openSettings("web-search")},
	SearchProviderUnknown:  {action: openSettings("web-search")},
	SearchProxyInvalid:     {action: openSettings("web-search")},
	SearchFallbackUnknown:  {},
	FaviconsOff:            {action: openSettings("web-search")},
	ParseLinkUnsupported:   {},

	DesktopAttachFailed: {},

	LocationKeyRequired:     {action: openSettings("location")},
	LocationKeyInvalid:      {action: openSettings("location")},
	LocationRateLimited:     {action: retry},
	LocationUnreachable:     {action: retry},
	LocationBadResponse:     {},
	LocationRejected:        {},
	LocationNotFound:        {},
	LocationEndpointInvalid: {action: openSettings("location")},

	ElicitationNotFound:        {},
	ElicitationAlreadyAnswered: {},
	ElicitationInvalid:         {},
	ElicitationActionInvalid:   {},
	ExportFormatUnknown:        {},
	ImportInvalid:              {},
	ImportNewerFormat:          {},
	BackupFailed:               {action: retry},
	BackupCorrupt:              {},
	BackupNewer:                {},
	BackupPassphraseRequired:   {},
	BackupPassphraseWrong:      {},
	RestoreOwnerRunning:        {},
	RestoreFailed:              {},

	MCPRequestFailed: {},
	MCPResourceEmpty: {},

	AgentTypeUnknown:       {action: openSettings("agents")},
	AgentTypeNeedsTask:     {},
	AgentNested:            {},
	AgentTokenBudget:       {action: openSettings("agents")},
	AgentTimeBudget:        {action: openSettings("agents")},
	AgentBackgroundMissing: {},
	AgentTypeInvalid:       {},
	AgentRunNotFound:       {},
}

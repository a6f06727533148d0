// The public face of src/api: the rest of the app imports from here only.
export type { AppError, AppErrorAction, CairnEvent, Transport } from "./types";
export { RESYNC } from "./types";
export { isAppError, toAppError } from "./errors";
export { createClient, SessionStores, type CairnClient } from "./client";
export { ClientProvider, useClient, useProviders, useSecrets, useSession, useSessionList, useSettings, useTopic } from "./context";
export { detectTransport } from "./transport";
export { TopicStore, RELOAD, type TopicState, type Snapshot } from "./store";
export * from "./settings";
export * from "./secrets";
export * from "./system";
export * from "./chat";
export * from "./providers";
export * from "./approvals";
export * from "./tools";
export * from "./mcp";
export * from "./permissions";
export { browserApi, type BrowserApi, type ExternalPage } from "./browser";
export type { StartupFailureApi, StartupFailureInfo } from "./startupFailure";

// The public face of src/api: the rest of the app imports from here only.
export type { AppError, AppErrorAction, CairnEvent, Transport } from "./types";
export { RESYNC } from "./types";
export { isAppError, toAppError } from "./errors";
export { createClient, type CairnClient } from "./client";
export { ClientProvider, useClient, useSecrets, useSettings, useTopic } from "./context";
export { detectTransport } from "./transport";
export { TopicStore, RELOAD, type TopicState, type Snapshot } from "./store";
export * from "./settings";
export * from "./secrets";
export * from "./system";

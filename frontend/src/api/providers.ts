import { SETTINGS_TOPIC } from "./settings";
import { RELOAD } from "./store";
import type { AppError, CairnEvent, Transport } from "./types";

// Wire types of the provider facade (app_chat.go, backend/llm/provider.go).

export type ModelSource = "fetched" | "manual" | "preset";

/** One model of a provider with the capabilities the loop and the tools need. */
export interface Model {
  id: string;
  /** Tokens; 0 = unknown. */
  contextWindow: number;
  supportsTools: boolean;
  vision: boolean;
  reasoning: boolean;
  source: ModelSource | string;
  /** The user's reasoning choice for the model ("" / absent = the provider's default). */
  reasoningEffort?: string;
  /** Reasoning token budget; 0 / absent = the provider's default. */
  reasoningBudget?: number;
}

/** What a provider's API needs beyond the OpenAI wire format (backend llm.Dialect). */
export interface Dialect {
  reasoningBack?: string;
  reasoning?: string;
}

/** The reasoning choices a provider offers: effort levels ("off" turns it off) and a budget. */
export interface ReasoningControls {
  efforts?: string[];
  budget?: boolean;
}

/** A reasoning choice; empty fields leave the default. */
export interface ReasoningChoice {
  effort?: string;
  budget?: number;
}

/** A known provider the UI offers as a starting point. */
export interface Preset {
  id: string;
  name: string;
  baseUrl: string;
  needsKey: boolean;
  keyUrl?: string;
  models?: Model[];
  dialect?: Dialect;
  reasoningControls?: ReasoningControls;
}

export const PRESET_CUSTOM = "custom";

/** A configured provider. The key itself never reaches a window: only set / last 4. */
export interface Provider {
  id: string;
  name: string;
  preset: string;
  baseUrl: string;
  models: Model[];
  defaultModel: string;
  needsKey: boolean;
  keySet: boolean;
  keyLast4?: string;
  dialect?: Dialect;
  reasoningControls?: ReasoningControls;
  createdAt: number;
  updatedAt: number;
}

/** Snapshot of the providers; shares topic `settings` (and its seq). */
export interface ProvidersSnapshot {
  seq: number;
  providers: Provider[];
}

/**
 * Create (no id) or update a provider. apiKey is sent only when the user typed one and is
 * never read back; clearKey removes the stored key. keepKey lets the stored key go to a
 * base URL on another host (scheme, host or port); without it, or a new key, such a move is
 * refused with provider_key_host_changed.
 */
export interface ProviderInput {
  id?: string;
  name: string;
  preset?: string;
  baseUrl: string;
  models?: Model[];
  defaultModel?: string;
  apiKey?: string;
  clearKey?: boolean;
  keepKey?: boolean;
}

/** Outcome of TestProvider: a failure is a result carrying the apperr. */
export interface TestResult {
  ok: boolean;
  model: string;
  latencyMs: number;
  reply?: string;
  error?: AppError;
}

export const PROVIDERS_TOPIC = SETTINGS_TOPIC;
export const PROVIDERS_CHANGED = "providers:changed";

export function providersApi(t: Transport) {
  return {
    presets: () => t.call<Preset[]>("ListProviderPresets"),
    list: () => t.call<ProvidersSnapshot>("ListProviders"),
    save: (input: ProviderInput) => t.call<Provider>("SaveProvider", input),
    remove: (id: string) => t.call<void>("DeleteProvider", id),
    fetchModels: (id: string) => t.call<Provider>("FetchModels", id),
    test: (id: string, model: string) => t.call<TestResult>("TestProvider", id, model),
  };
}

export type ProvidersApi = ReturnType<typeof providersApi>;

/** providers:changed carries the list (its own seq field is not the topic's); others change nothing. */
export function applyProvidersEvent(_state: ProvidersSnapshot, ev: CairnEvent) {
  if (ev.type !== PROVIDERS_CHANGED) return undefined;
  const d = ev.data as Partial<ProvidersSnapshot> | undefined;
  if (d && Array.isArray(d.providers)) return { seq: ev.seq, providers: d.providers } as ProvidersSnapshot;
  return RELOAD;
}

import { SETTINGS_TOPIC } from "./settings";
import type * as wire from "./generated";
import { RELOAD } from "./store";
import type { CairnEvent, Transport } from "./types";

// Wire types of the provider facade (app_chat.go, backend/llm/provider.go).

export type ModelSource = "fetched" | "manual" | "preset";

export type Model = wire.LLMModel;
export type Dialect = wire.LLMDialect;
export type ReasoningControls = wire.LLMReasoningControls;
export type ReasoningChoice = wire.LLMReasoning;
export type Preset = wire.LLMPreset;

export const PRESET_CUSTOM = "custom";

export type Provider = wire.LLMProvider;
export type ProvidersSnapshot = wire.LLMProvidersSnapshot;
export type ProviderInput = wire.LLMProviderInput;
/** A custom header of a provider (a secret one comes back without its value). */
export type LLMHeader = wire.LLMHeader;
export type TestResult = wire.LLMTestResult;
/** A price per million tokens (cachedInput absent = not known) and the one that applies. */
export type Price = wire.LLMPrice;
export type ModelPrice = wire.LLMModelPrice;
/** What an answer cost, worked out by the backend (llm.CostOf). */
export type Cost = wire.LLMCost;

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
    setPrice: (id: string, model: string, price: Price) => t.call<Provider>("SetModelPrice", id, model, price),
    clearPrice: (id: string, model: string) => t.call<Provider>("ClearModelPrice", id, model),
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

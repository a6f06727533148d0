import type * as wire from "./generated";
import { RELOAD } from "./store";
import type { CairnEvent, Transport } from "./types";

// Wire types of the assistants facade (app_assistants.go, backend/assistants).

export type Assistant = wire.AssistantsAssistant;
export type AssistantInput = wire.AssistantsInput;
export type AssistantList = wire.AssistantsList;
export type AssistantLink = wire.AssistantsLink;
export type AssistantStarted = wire.AssistantsStarted;

/** The topic of the assistant list; assistants:changed carries the whole list. */
export const ASSISTANTS_TOPIC = "assistants";
export const ASSISTANTS_CHANGED = "assistants:changed";

/** Assistants: saved presets a conversation starts from; a few are built in. */
export function assistantsApi(t: Transport) {
  return {
    list: () => t.call<AssistantList>("ListAssistants"),
    icons: async (): Promise<string[]> => (await t.call<string[] | null>("ListAssistantIcons")) ?? [],
    save: (id: string, input: AssistantInput) => t.call<Assistant>("SaveAssistant", id, input),
    copy: (id: string) => t.call<Assistant>("CopyAssistant", id),
    remove: (id: string) => t.call<void>("DeleteAssistant", id),
    setHidden: (id: string, hidden: boolean) => t.call<Assistant>("SetAssistantHidden", id, hidden),
    start: (id: string) => t.call<AssistantStarted>("StartAssistant", id),
    sessionAssistant: (sessionId: string) => t.call<AssistantLink | null>("GetSessionAssistant", sessionId),
  };
}

export type AssistantsApi = ReturnType<typeof assistantsApi>;

/** assistants:changed carries the list; other types on the topic change nothing. */
export function applyAssistantsEvent(_state: AssistantList, ev: CairnEvent) {
  if (ev.type !== ASSISTANTS_CHANGED) return undefined;
  const d = ev.data as Partial<AssistantList> | undefined;
  if (d && Array.isArray(d.assistants)) return { seq: ev.seq, assistants: d.assistants } as AssistantList;
  return RELOAD;
}

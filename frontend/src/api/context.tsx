import { createContext, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from "react";
import type { CairnClient } from "./client";
import type { TopicState, TopicStore, Snapshot } from "./store";
import type { SettingsSnapshot } from "./settings";
import type { SecretsSnapshot } from "./secrets";
import type { SessionList, SessionSnapshot } from "./chat";
import type { ProvidersSnapshot } from "./providers";
import type { AssistantList } from "./assistants";
import type { Toolset } from "./tools";

const ClientContext = createContext<CairnClient | null>(null);

export function ClientProvider({ client, children }: { client: CairnClient; children: ReactNode }) {
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>;
}

/** The backend client of this window. */
export function useClient(): CairnClient {
  const c = useContext(ClientContext);
  if (!c) throw new Error("useClient outside <ClientProvider>");
  return c;
}

/** The backend client when there is one (a component that also renders without it: Markdown). */
export function useOptionalClient(): CairnClient | null {
  return useContext(ClientContext);
}

/** Subscribes a component to a topic store (starting it on first use). */
export function useTopic<S extends Snapshot>(store: TopicStore<S>): TopicState<S> {
  return useSyncExternalStore(store.subscribe, store.getState, store.getState);
}

export function useSettings(): TopicState<SettingsSnapshot> {
  return useTopic(useClient().stores.settings);
}

export function useSecrets(): TopicState<SecretsSnapshot> {
  return useTopic(useClient().stores.secrets);
}

export function useProviders(): TopicState<ProvidersSnapshot> {
  return useTopic(useClient().stores.providers);
}

/** The assistants, built-in first (topic `assistants`). */
export function useAssistants(): TopicState<AssistantList> {
  return useTopic(useClient().stores.assistants);
}

/** The capabilities' toolsets (names, label keys, icons, defaults); empty until loaded. */
export function useToolsets(): readonly Toolset[] {
  return useTopic(useClient().stores.toolsets).data?.toolsets ?? NO_TOOLSETS;
}

const NO_TOOLSETS: readonly Toolset[] = [];

export function useSessionList(): TopicState<SessionList> {
  return useTopic(useClient().stores.sessionList);
}

/** The live snapshot of one session; its store lives while a component shows it. */
export function useSession(id: string): TopicState<SessionSnapshot> & { store: TopicStore<SessionSnapshot> } {
  const client = useClient();
  const store = useMemo(() => client.sessions.get(id), [client, id]);
  useEffect(() => client.sessions.retain(store), [client, store]);
  const state = useTopic(store);
  return { ...state, store };
}

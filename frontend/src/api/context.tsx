import { createContext, useContext, useSyncExternalStore, type ReactNode } from "react";
import type { CairnClient } from "./client";
import type { TopicState, TopicStore, Snapshot } from "./store";
import type { SettingsSnapshot } from "./settings";
import type { SecretsSnapshot } from "./secrets";

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

import { secretsApi, SECRETS_CHANGED, SECRETS_TOPIC, type SecretsSnapshot } from "./secrets";
import { settingsApi, SETTINGS_CHANGED, SETTINGS_TOPIC, type SettingsSnapshot } from "./settings";
import { RELOAD, TopicStore } from "./store";
import { systemApi } from "./system";
import type { CairnEvent, Transport } from "./types";

/**
 * Everything the UI talks to: typed domain wrappers over one transport, and one store per
 * topic the UI shows. Add a domain by writing `api/<domain>.ts` (a `<domain>Api(t)` factory
 * over `t.call("Method", ...)`) and adding it here.
 */
export function createClient(transport: Transport) {
  const settings = settingsApi(transport);
  const secrets = secretsApi(transport);
  const system = systemApi(transport);
  return {
    transport,
    settings,
    secrets,
    system,
    stores: {
      settings: new TopicStore<SettingsSnapshot>(transport, {
        topic: SETTINGS_TOPIC,
        load: settings.get,
        apply: (state, ev) => applySettingsEvent(state, ev),
      }),
      secrets: new TopicStore<SecretsSnapshot>(transport, {
        topic: SECRETS_TOPIC,
        load: secrets.list,
        apply: (state, ev) => applySecretsEvent(state, ev),
      }),
    },
  };
}

export type CairnClient = ReturnType<typeof createClient>;

/** settings:changed carries the whole snapshot; other types on the topic change nothing. */
export function applySettingsEvent(state: SettingsSnapshot, ev: CairnEvent) {
  if (ev.type !== SETTINGS_CHANGED) return undefined;
  const d = ev.data as Partial<SettingsSnapshot> | undefined;
  if (d && typeof d.values === "object" && d.values !== null && Array.isArray(d.specs)) {
    return { ...state, ...d, seq: ev.seq } as SettingsSnapshot;
  }
  return RELOAD;
}

/** secrets:changed may carry the list; if it does not, the list is fetched again. */
export function applySecretsEvent(state: SecretsSnapshot, ev: CairnEvent) {
  if (ev.type !== SECRETS_CHANGED) return undefined;
  const d = ev.data as Partial<SecretsSnapshot> | undefined;
  if (d && Array.isArray(d.secrets)) return { ...state, ...d, seq: ev.seq } as SecretsSnapshot;
  return RELOAD;
}

import type { Transport } from "./types";
import { SETTINGS_TOPIC } from "./settings";

/** A secret as a window may see it: never the value, only whether it is set. */
export interface SecretInfo {
  name: string;
  set: boolean;
  last4?: string;
  /**
   * One of the keys Settings → Web search sets and removes (the backend's secrets.Known).
   * The others, providers' keys and MCP credentials, are listed for their own sections and
   * refused by SetSecret and DeleteSecret.
   */
  known: boolean;
}

/** Snapshot of the secrets; shares topic `settings` (and its seq) with the settings. */
export interface SecretsSnapshot {
  seq: number;
  backend: "keyring" | "file";
  keyringAvailable: boolean;
  note?: string;
  secrets: SecretInfo[];
}

export const SECRETS_TOPIC = SETTINGS_TOPIC;
export const SECRETS_CHANGED = "secrets:changed";

export function secretsApi(t: Transport) {
  return {
    list: () => t.call<SecretsSnapshot>("ListSecrets"),
    set: (name: string, value: string) => t.call<unknown>("SetSecret", name, value),
    remove: (name: string) => t.call<unknown>("DeleteSecret", name),
  };
}

export type SecretsApi = ReturnType<typeof secretsApi>;

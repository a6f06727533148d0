import type { Transport } from "./types";
import type * as wire from "./generated";
import { SETTINGS_TOPIC } from "./settings";

export type SecretInfo = wire.SecretsStatus;
export type SecretsSnapshot = wire.SecretsSnapshot;

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

import type { Transport } from "./types";
import type * as wire from "./generated";

export type SettingType = wire.SettingsType;
export type SettingSpec = wire.SettingsSpec;
export type SettingsSnapshot = wire.SettingsSnapshot;

export const SETTINGS_TOPIC = "settings";
export const SETTINGS_CHANGED = "settings:changed";

export const LANGUAGE_KEY = "general.language";
export const THEME_KEY = "general.theme";

export function settingsApi(t: Transport) {
  return {
    get: () => t.call<SettingsSnapshot>("GetSettings"),
    /** Validated by the backend (errors setting_invalid / setting_unknown). */
    set: (key: string, value: unknown) => t.call<SettingsSnapshot>("SetSetting", key, value),
  };
}

export type SettingsApi = ReturnType<typeof settingsApi>;

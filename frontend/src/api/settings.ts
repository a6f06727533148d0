import type { Transport } from "./types";

export type SettingType = "string" | "bool" | "int" | "enum" | "duration";

/** Describes one setting; the UI renders any setting without custom UI from this. */
export interface SettingSpec {
  key: string;
  type: SettingType;
  default: unknown;
  enum?: string[];
  min?: number;
  max?: number;
  /** Longest accepted string; long ones (prompts) get a multi-line editor. */
  maxLen?: number;
  /** Bounds of a duration setting, as Go duration text ("1s", "1h"). */
  minDuration?: string;
  maxDuration?: string;
  /** Settings section it belongs to, e.g. "general". */
  section: string;
  secret?: false;
}

/** Snapshot of topic `settings`; `seq` is the topic's sequence number when it was taken. */
export interface SettingsSnapshot {
  seq: number;
  values: Record<string, unknown>;
  specs: SettingSpec[];
}

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

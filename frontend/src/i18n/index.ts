import i18next, { type i18n as I18n } from "i18next";
import { initReactI18next } from "react-i18next";

import enChat from "./locales/en/chat.json";
import enCommon from "./locales/en/common.json";
import enErrors from "./locales/en/errors.json";
import enSettings from "./locales/en/settings.json";
import zhChat from "./locales/zh-CN/chat.json";
import zhCommon from "./locales/zh-CN/common.json";
import zhErrors from "./locales/zh-CN/errors.json";
import zhSettings from "./locales/zh-CN/settings.json";

/** Every namespace; a locale must have a file for each (the parity test checks). */
export const NAMESPACES = ["common", "settings", "errors", "chat"] as const;
export type Namespace = (typeof NAMESPACES)[number];

export const LANGUAGES = ["en", "zh-CN"] as const;
export type Language = (typeof LANGUAGES)[number];
/** The value of the `general.language` setting. */
export type LanguageSetting = "system" | Language;

export const resources = {
  en: { common: enCommon, settings: enSettings, errors: enErrors, chat: enChat },
  "zh-CN": { common: zhCommon, settings: zhSettings, errors: zhErrors, chat: zhChat },
} as const;

/** Maps the setting (or an OS language list for "system") to a language we ship. */
export function resolveLanguage(
  setting: unknown,
  systemLanguages: readonly string[] = typeof navigator !== "undefined" ? navigator.languages ?? [navigator.language] : [],
): Language {
  if (setting === "en" || setting === "zh-CN") return setting;
  for (const l of systemLanguages) {
    const lower = (l ?? "").toLowerCase();
    if (lower.startsWith("zh")) return "zh-CN";
    if (lower.startsWith("en")) return "en";
  }
  return "en";
}

/** A fresh i18next instance with every resource bundled (no loading, no flash). */
export function createI18n(lng: Language = resolveLanguage("system")): I18n {
  const inst = i18next.createInstance();
  void inst.use(initReactI18next).init({
    resources,
    lng,
    fallbackLng: "en",
    supportedLngs: [...LANGUAGES],
    ns: [...NAMESPACES],
    defaultNS: "common",
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
    initAsync: false,
  });
  return inst;
}

/**
 * Turns a backend i18n key ("errors.model_auth_failed": namespace first, then the key)
 * into i18next's "errors:model_auth_failed". Keys without a known namespace stay as they are.
 */
export function namespacedKey(key: string): string {
  if (key.includes(":")) return key;
  const dot = key.indexOf(".");
  if (dot > 0) {
    const ns = key.slice(0, dot);
    if ((NAMESPACES as readonly string[]).includes(ns)) return `${ns}:${key.slice(dot + 1)}`;
  }
  return key;
}

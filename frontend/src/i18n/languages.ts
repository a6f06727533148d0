// Language facts and the locale loaders, without i18next: the start-up module (main.tsx)
// uses them to fetch the right locale while the rest of the app is still loading.

/** Every namespace; a locale must have a file for each (the parity test checks). */
export const NAMESPACES = ["common", "settings", "errors", "chat"] as const;
export type Namespace = (typeof NAMESPACES)[number];

export const LANGUAGES = ["en", "zh-CN"] as const;
export type Language = (typeof LANGUAGES)[number];
/** The value of the `general.language` setting. */
export type LanguageSetting = "system" | Language;

/** All namespaces of one language (locales/<lng>/<ns>.json). */
export type LocaleBundle = Record<Namespace, Record<string, unknown>>;

/**
 * One chunk per language, loaded on demand: a window needs only its own language (about
 * half of the strings), and the other one only if the user switches.
 */
export const LOCALES: Record<Language, () => Promise<LocaleBundle>> = {
  en: () => import("./locale-en").then((m) => m.default),
  "zh-CN": () => import("./locale-zh-CN").then((m) => m.default),
};

/**
 * lng's strings: the ones the page came with when they are lng's and complete (`cairn serve`
 * writes the window's language into index.html), else lng's chunk.
 */
export function loadLocale(
  lng: Language,
  inlined?: { lng: string; strings: Record<string, Record<string, unknown> | undefined> } | null,
): Promise<LocaleBundle> {
  if (inlined?.lng === lng && NAMESPACES.every((ns) => typeof inlined.strings[ns] === "object" && inlined.strings[ns] !== null)) {
    return Promise.resolve(inlined.strings as LocaleBundle);
  }
  return LOCALES[lng]();
}

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

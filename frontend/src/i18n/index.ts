import i18next, { type i18n as I18n } from "i18next";
import { initReactI18next } from "react-i18next";
import { LANGUAGES, LOCALES, NAMESPACES, type Language, type LocaleBundle } from "./languages";

export * from "./languages";

/**
 * A fresh i18next instance over the locales already loaded (`loaded` must hold `lng`), so
 * the first render needs no loading and shows no flash. Other languages are added by
 * ensureLanguage.
 */
export function createI18n(lng: Language, loaded: Partial<Record<Language, LocaleBundle>>): I18n {
  const inst = i18next.createInstance();
  void inst.use(initReactI18next).init({
    resources: loaded,
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

/** Whether every namespace of lng is in the instance. */
export function hasLanguage(i18n: I18n, lng: Language): boolean {
  return NAMESPACES.every((ns) => i18n.hasResourceBundle(lng, ns));
}

/** Loads lng's strings into the instance once (no-op when they are there). */
export async function ensureLanguage(i18n: I18n, lng: Language): Promise<void> {
  if (hasLanguage(i18n, lng)) return;
  const bundle = await LOCALES[lng]();
  for (const ns of NAMESPACES) {
    if (!i18n.hasResourceBundle(lng, ns)) i18n.addResourceBundle(lng, ns, bundle[ns], true, false);
  }
}

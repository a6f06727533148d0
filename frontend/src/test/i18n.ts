import { createI18n, type Language } from "../i18n";
import en from "../i18n/locale-en";
import zhCN from "../i18n/locale-zh-CN";

/**
 * An i18next instance for tests with lng's strings loaded up front, as main.tsx does before
 * the first render; other languages load on demand (ensureLanguage), as in the app.
 */
export function testI18n(lng: Language = "en") {
  return createI18n(lng, { [lng]: lng === "en" ? en : zhCN });
}

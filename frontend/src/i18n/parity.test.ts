import { describe, expect, it } from "vitest";
import {
  createI18n,
  ensureLanguage,
  hasLanguage,
  LANGUAGES,
  loadLocale,
  LOCALES,
  NAMESPACES,
  namespacedKey,
  resolveLanguage,
  type Language,
} from ".";
import en from "./locale-en";

// Every locale file on disk, not just the ones index.ts imports, so a new file is checked too.
const files = import.meta.glob<Record<string, unknown>>("./locales/*/*.json", { eager: true, import: "default" });

type Tree = Record<string, unknown>;
const byLocale = new Map<string, Map<string, Tree>>();
for (const [path, json] of Object.entries(files)) {
  const m = /\.\/locales\/([^/]+)\/([^/]+)\.json$/.exec(path);
  if (!m) continue;
  const [, locale, ns] = m as unknown as [string, string, string];
  if (!byLocale.has(locale)) byLocale.set(locale, new Map());
  byLocale.get(locale)!.set(ns, json as Tree);
}

function flatten(tree: Tree, prefix = "", out = new Map<string, unknown>()): Map<string, unknown> {
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === "object" && !Array.isArray(v)) flatten(v as Tree, key, out);
    else out.set(key, v);
  }
  return out;
}

const vars = (s: unknown) => [...String(s).matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1]).sort();

describe("locale files", () => {
  const locales = [...byLocale.keys()].sort();
  const reference = byLocale.get("en")!;

  it("exist for en and zh-CN, and each language's chunk (LOCALES) holds exactly its files", async () => {
    expect(locales).toEqual([...LANGUAGES].sort());
    expect(Object.keys(LOCALES).sort()).toEqual(locales);
    expect([...reference.keys()].sort()).toEqual([...NAMESPACES].sort());
    for (const locale of locales) {
      const bundle = await LOCALES[locale as Language]();
      expect(Object.keys(bundle).sort(), locale).toEqual([...NAMESPACES].sort());
      for (const ns of NAMESPACES) expect(bundle[ns], `${locale}/${ns}`).toEqual(byLocale.get(locale)!.get(ns));
    }
  });

  it("a window takes the strings its page came with when they are its language's and complete", async () => {
    const strings = Object.fromEntries(NAMESPACES.map((ns) => [ns, { page: "from the page" }]));
    expect(await loadLocale("zh-CN", { lng: "zh-CN", strings })).toBe(strings);
    // another language, or a bundle short of a namespace: the language's chunk
    expect(await loadLocale("en", { lng: "zh-CN", strings })).toEqual(await LOCALES.en());
    const { chat: _chat, ...short } = strings;
    expect(await loadLocale("zh-CN", { lng: "zh-CN", strings: short })).toEqual(await LOCALES["zh-CN"]());
    expect(await loadLocale("en", null)).toEqual(await LOCALES.en());
  });

  it("a language not loaded at start is added on demand", async () => {
    const i18n = createI18n("en", { en });
    expect(hasLanguage(i18n, "zh-CN")).toBe(false);
    await ensureLanguage(i18n, "zh-CN");
    expect(hasLanguage(i18n, "zh-CN")).toBe(true);
    await i18n.changeLanguage("zh-CN");
    expect(i18n.t("settings:title")).toBe(byLocale.get("zh-CN")!.get("settings")!.title);
  });

  for (const locale of locales) {
    it(`${locale} has the same namespaces as en`, () => {
      expect([...byLocale.get(locale)!.keys()].sort()).toEqual([...reference.keys()].sort());
    });

    for (const ns of NAMESPACES) {
      it(`${locale}/${ns}.json has exactly the keys of en, non-empty, with the same {{variables}}`, () => {
        const want = flatten(reference.get(ns) ?? {});
        const got = flatten(byLocale.get(locale)?.get(ns) ?? {});
        const missing = [...want.keys()].filter((k) => !got.has(k));
        const extra = [...got.keys()].filter((k) => !want.has(k));
        expect({ missing, extra }).toEqual({ missing: [], extra: [] });
        for (const [k, v] of got) {
          expect(typeof v === "string" && v.trim() !== "", `${locale}/${ns}:${k} is empty`).toBe(true);
          expect(vars(v), `${locale}/${ns}:${k} variables`).toEqual(vars(want.get(k)));
        }
      });
    }
  }

  it("zh-CN is really translated (not a copy of en)", () => {
    for (const ns of NAMESPACES) {
      const en = flatten(reference.get(ns) ?? {});
      const zh = flatten(byLocale.get("zh-CN")?.get(ns) ?? {});
      // A value that is only placeholders and punctuation ("{{n}} / {{count}}") has no words to translate.
      const words = (v: unknown) => String(v).replace(/\{\{[^}]*\}\}/g, "");
      const same = [...en.entries()].filter(([k, v]) => zh.get(k) === v && /[a-z]{4,}/.test(words(v)));
      // language names and product words may legitimately stay the same
      const allowed = new Set(["app.name", "fields.general.language.options.en", "fields.general.language.options.zh-CN", "about.checks.webview"]);
      // search providers' names are product names in every language
      const product = (k: string) => k.startsWith("fields.websearch.provider.options.");
      expect(same.filter(([k]) => !allowed.has(k) && !product(k)).map(([k]) => `${ns}:${k}`)).toEqual([]);
    }
  });
});

// Literal keys in the source (t("…")), checked against en: catches typos and missing entries.
const sources = import.meta.glob<string>(["../**/*.tsx", "../**/*.ts", "!../**/*.test.*", "!../test/**"], {
  eager: true,
  query: "?raw",
  import: "default",
});

describe("keys used in the source", () => {
  const i18n = createI18n("en", { en });
  it("all exist in en", () => {
    const missing: string[] = [];
    for (const [path, text] of Object.entries(sources)) {
      const ns = /useTranslation\("(\w+)"\)/.exec(text)?.[1] ?? "common";
      for (const m of text.matchAll(/\bt\(\s*"([\w.:-]+)"/g)) {
        const key = m[1]!;
        const full = key.includes(":") ? key : `${ns}:${key}`;
        if (!i18n.exists(full)) missing.push(`${path}: ${full}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("language helpers", () => {
  it("resolves the setting, falling back to the system language list", () => {
    expect(resolveLanguage("zh-CN", ["en-US"])).toBe("zh-CN");
    expect(resolveLanguage("en", ["zh-CN"])).toBe("en");
    expect(resolveLanguage("system", ["zh-TW", "en"])).toBe("zh-CN");
    expect(resolveLanguage("system", ["fr-FR", "en-GB"])).toBe("en");
    expect(resolveLanguage("system", ["fr-FR"])).toBe("en");
  });

  it("maps backend keys to namespaces", () => {
    expect(namespacedKey("errors.model_auth_failed")).toBe("errors:model_auth_failed");
    expect(namespacedKey("common.transport.unreachable")).toBe("common:transport.unreachable");
    expect(namespacedKey("settings:title")).toBe("settings:title");
    expect(namespacedKey("nope.key")).toBe("nope.key");
  });
});

/// <reference types="vitest/config" />
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { defineConfig, type Plugin, type Rollup } from "vite";
import { LANGUAGES, NAMESPACES } from "./src/i18n/languages";

// `npm run dev` against a running `cairn serve`: CAIRN_API=http://127.0.0.1:PORT npm run dev
// (open the dev page once with ?token=…: the tab keeps the token and sends it as a header).
const api = process.env.CAIRN_API;

/**
 * The UI is written against React's API and types, and runs on Preact (preact/compat): the
 * same components at a third of the code to download, compile and run before the first
 * frame. Every import of React, ours and the libraries' (react-i18next, react-markdown,
 * @tanstack/react-virtual, @testing-library/react), resolves to Preact through these.
 */
const preactAliases = [
  { find: /^react$/, replacement: "preact/compat" },
  { find: /^react-dom$/, replacement: "preact/compat" },
  { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
  { find: /^react-dom\/test-utils$/, replacement: "preact/test-utils" },
  { find: /^react\/jsx-runtime$/, replacement: "preact/jsx-runtime" },
  { find: /^react\/jsx-dev-runtime$/, replacement: "preact/jsx-runtime" },
  // react-i18next's shim for React < 18 (CommonJS): preact/compat has the hook itself.
  { find: /^use-sync-external-store\/shim(\/index\.js)?$/, replacement: "preact/compat" },
];

/**
 * The chunks that run before the first frame: the entry (main.tsx, which imports ./start,
 * then ./boot with Preact, i18next and the shell) and every chunk it imports statically.
 * Vite adds <link rel="modulepreload"> for those itself.
 */
function startupChunks(bundle: Rollup.OutputBundle): Rollup.OutputChunk[] {
  const chunks = new Map(Object.values(bundle).flatMap((c) => (c.type === "chunk" ? [[c.fileName, c] as const] : [])));
  const todo = [...chunks.values()].filter((c) => c.isEntry);
  const out = new Map<string, Rollup.OutputChunk>();
  for (let c = todo.pop(); c; c = todo.pop()) {
    if (out.has(c.fileName)) continue;
    out.set(c.fileName, c);
    for (const f of c.imports) if (chunks.has(f)) todo.push(chunks.get(f)!);
  }
  if (![...out.values()].some((c) => c.moduleIds.some((id) => id.endsWith("/src/boot.tsx")))) {
    throw new Error("src/boot.tsx is not among the entry's static imports: the first frame would wait for another request");
  }
  return [...out.values()];
}

/**
 * Fails the build when React itself got into a chunk: npm installs react and react-dom as
 * peers of the React libraries, and an import the aliases miss (a new library, a new
 * subpath) would otherwise ship a second framework next to Preact without a word.
 */
function noReact(): Plugin {
  return {
    name: "cairn-no-react",
    apply: "build",
    generateBundle(_opts, bundle) {
      for (const c of Object.values(bundle)) {
        if (c.type !== "chunk") continue;
        const react = c.moduleIds.filter((id) => /[\\/]node_modules[\\/](react|react-dom|use-sync-external-store)[\\/]/.test(id));
        if (react.length > 0) this.error(`${c.fileName} bundles React (${react.join(", ")}): add an alias in vite.config.ts`);
      }
    },
  };
}

/**
 * Writes locales/<lng>.json, every namespace of one language in one file (the shape of
 * LocaleBundle), for `cairn serve` to put the window's strings into index.html
 * (backend/server/page.go). The app itself loads a language as a chunk (i18n/languages.ts).
 */
function pageLocales(): Plugin {
  return {
    name: "cairn-page-locales",
    apply: "build",
    generateBundle() {
      for (const lng of LANGUAGES) {
        const bundle = Object.fromEntries(
          NAMESPACES.map((ns) => [ns, JSON.parse(readFileSync(new URL(`./src/i18n/locales/${lng}/${ns}.json`, import.meta.url), "utf8"))]),
        );
        this.emitFile({ type: "asset", fileName: `locales/${lng}.json`, source: JSON.stringify(bundle) });
      }
    },
  };
}

/**
 * Keeps only the WOFF2 source of each @font-face in KaTeX's stylesheet. Both engines Cairn
 * runs in (WebKitGTK, Chromium) load WOFF2 and never fetch the WOFF and TrueType copies
 * behind it, which would otherwise be emitted and embedded in the binary (about 800 KB).
 * The build fails if a font of another kind is still emitted.
 */
function woff2Only(): Plugin {
  const katexCss = /[\\/]katex[\\/]dist[\\/]katex(\.min)?\.css$/;
  return {
    name: "cairn-woff2-only",
    apply: "build",
    enforce: "pre",
    transform(code, id) {
      if (!katexCss.test(id)) return null;
      return { code: code.replace(/,\s*url\([^)]*\.(?:woff|ttf)\)\s*format\((["'])(?:woff|truetype)\1\)/g, ""), map: null };
    },
    generateBundle(_opts, bundle) {
      const legacy = Object.keys(bundle).filter((f) => /\.(woff|ttf|otf|eot)$/.test(f));
      if (legacy.length > 0) this.error(`fonts other than WOFF2 in the build (${legacy.join(", ")}): see woff2Only in vite.config.ts`);
    },
  };
}

const HINT = "//# allFunctionsCalledOnLoad\n";

/**
 * Marks the start-up chunks for eager compilation (V8's explicit compile hints). Most of
 * their functions run before the first frame; V8 then compiles them on a background thread
 * while they download, instead of one by one on the main thread during the first render.
 * The hint is a comment added after Vite named the files, so the names stay content hashes
 * of the same code.
 */
function compileHints(): Plugin {
  return {
    name: "cairn-compile-hints",
    apply: "build",
    generateBundle: {
      // After Vite's own additions (the `__vite__mapDeps` line it puts on top): the hint
      // must open the file.
      order: "post",
      handler(_opts, bundle) {
        for (const c of startupChunks(bundle)) if (!c.code.startsWith(HINT)) c.code = HINT + c.code;
      },
    },
  };
}

/**
 * Writes a gzip copy (`<file>.gz`) next to every script, stylesheet and SVG worth it;
 * `cairn serve` answers with it when the browser accepts gzip (backend/server/static.go).
 * Compressed once here, at the highest level, rather than on each start of the server.
 */
function precompress(): Plugin {
  return {
    name: "cairn-precompress",
    apply: "build",
    generateBundle: {
      order: "post",
      handler(_opts, bundle) {
        for (const f of Object.values(bundle)) {
          // locales/*.json go into index.html, never out as files of their own.
          if (!/\.(js|css|svg|json)$/.test(f.fileName) || f.fileName.startsWith("locales/")) continue;
          const raw = Buffer.from(f.type === "chunk" ? f.code : f.source);
          if (raw.length < 1024) continue;
          const gz = gzipSync(raw, { level: 9 });
          if (gz.length > raw.length * 0.9) continue;
          this.emitFile({ type: "asset", fileName: `${f.fileName}.gz`, source: gz });
        }
      },
    },
  };
}

export default defineConfig({
  // precompress last: it must see the final code of every chunk.
  plugins: [woff2Only(), noReact(), pageLocales(), compileHints(), precompress()],
  resolve: { alias: preactAliases },
  // JSX compiles to preact/jsx-runtime directly (tsconfig keeps React's JSX types).
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  // Relative asset URLs: the same build is served by Wails and by `cairn serve`.
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
  },
  server: api
    ? { proxy: { "/api": { target: api, changeOrigin: false, ws: true } } }
    : undefined,
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test/setup.ts"],
    css: false,
    restoreMocks: true,
    // Its package.json sends Node to a CommonJS build that requires react-dom itself.
    alias: [
      {
        find: /^@testing-library\/react$/,
        replacement: fileURLToPath(new URL("./node_modules/@testing-library/react/dist/@testing-library/react.esm.js", import.meta.url)),
      },
    ],
    // Run the React libraries through Vite, so that their imports of React meet the
    // aliases above (Vitest otherwise hands node_modules to Node untransformed).
    server: {
      deps: {
        inline: [/@testing-library\/react/, /react-i18next/, /react-markdown/, /@tanstack\/react-virtual/],
      },
    },
    // Room for the 5 s async waits of src/test/setup.ts on a loaded CI machine.
    testTimeout: 20_000,
  },
});

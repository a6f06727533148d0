/// <reference types="vitest/config" />
import { gzipSync } from "node:zlib";
import { defineConfig, type Plugin, type Rollup } from "vite";
import react from "@vitejs/plugin-react";

// `npm run dev` against a running `cairn serve`: CAIRN_API=http://127.0.0.1:PORT npm run dev
// (open the dev page once with ?token=… so the auth cookie is set through the proxy).
const api = process.env.CAIRN_API;

/**
 * The chunks that run before the first frame: the entry (main.tsx) and the boot chunk with
 * everything it imports (React, i18next, the shell).
 */
function startupChunks(bundle: Rollup.OutputBundle): Rollup.OutputChunk[] {
  const chunks = new Map(Object.values(bundle).flatMap((c) => (c.type === "chunk" ? [[c.fileName, c] as const] : [])));
  const boot = [...chunks.values()].find((c) => c.moduleIds.some((id) => id.endsWith("/src/boot.tsx")));
  if (!boot) throw new Error("no chunk holds src/boot.tsx");
  const out = new Map([...chunks.values()].filter((c) => c.isEntry).map((c) => [c.fileName, c]));
  const todo = [boot];
  for (let c = todo.pop(); c; c = todo.pop()) {
    if (out.has(c.fileName)) continue;
    out.set(c.fileName, c);
    for (const f of c.imports) if (chunks.has(f)) todo.push(chunks.get(f)!);
  }
  return [...out.values()];
}

/**
 * main.tsx is a small entry that starts the backend calls and then imports ./boot. Vite
 * preloads only static imports, so this adds <link rel="modulepreload"> for the boot chunk
 * and its imports to index.html: they download (and compile off the main thread) while the
 * entry runs, instead of after it.
 */
function preloadBoot(): Plugin {
  return {
    name: "cairn-preload-boot",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, ctx) {
        if (!ctx.bundle) return [];
        return startupChunks(ctx.bundle)
          .filter((c) => !c.isEntry)
          .map((c) => ({
            tag: "link",
            attrs: { rel: "modulepreload", crossorigin: true, href: `./${c.fileName}` },
            injectTo: "head" as const,
          }));
      },
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
          if (!/\.(js|css|svg|json)$/.test(f.fileName)) continue;
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
  plugins: [react(), preloadBoot(), compileHints(), precompress()],
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
    // Room for the 5 s async waits of src/test/setup.ts on a loaded CI machine.
    testTimeout: 20_000,
  },
});

/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// `npm run dev` against a running `cairn serve`: CAIRN_API=http://127.0.0.1:PORT npm run dev
// (open the dev page once with ?token=… so the auth cookie is set through the proxy).
const api = process.env.CAIRN_API;

export default defineConfig({
  plugins: [react()],
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
  },
});

// Recreates frontend/dist/.gitkeep after `vite build` empties the folder, so the
// committed placeholder that `//go:embed all:frontend/dist` needs is never lost.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, ".gitkeep"), "");

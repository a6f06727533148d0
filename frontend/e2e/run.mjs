// End-to-end runner: `npm run e2e [-- NAME…]`. Loads every frontend/e2e/*.e2e.mjs (or only
// those whose file name contains one of the NAMEs) into this one process, so all suites
// share one Chromium (lib/harness.mjs). The suites use node's built-in test runner
// (node:test), whose summary ("tests / pass / fail") closes the output; the exit code is
// non-zero when a test failed. After the last test every server and the browser are stopped.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { after } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cleanup } from "./lib/harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".e2e.mjs"))
  .filter((f) => filters.length === 0 || filters.some((n) => f.includes(n)))
  .sort();

if (files.length === 0) {
  console.error(`e2e: no suite matches ${filters.join(", ") || "*.e2e.mjs"}`);
  process.exit(1);
}

after(cleanup);

for (const sig of ["SIGINT", "SIGTERM"]) {
  process.once(sig, () => {
    cleanup().finally(() => process.exit(130));
  });
}

for (const f of files) {
  await import(pathToFileURL(join(here, f)).href);
}

// Lets @modelcontextprotocol/conformance 0.1.16 run on Node 20: load it with
//   node --import ./node20/register.mjs node_modules/.bin/conformance ...
//
// The suite's bundle does `import { globSync } from "fs"` at the top. fs.globSync came in
// Node 22, so on Node 20 the module fails to link ("The requested module 'fs' does not
// provide an export named 'globSync'") before any command runs, although only
// `tier-check` calls it. Assigning fs.globSync from a preload does not help: the named
// exports of a builtin's ESM facade are fixed when the builtin is first loaded. So this
// registers a resolve hook that hands the suite's own `fs` imports a module that
// re-exports node:fs plus a globSync backed by the glob package. On a Node that has
// fs.globSync it does nothing.
import { register } from 'node:module';
import fs from 'node:fs';

if (typeof fs.globSync !== 'function') {
  register('./hooks.mjs', import.meta.url);
}

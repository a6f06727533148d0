// Module resolve hook registered by register.mjs (see there): inside the conformance
// package only, `fs` / `node:fs` resolve to ./fs.mjs.
const shim = new URL('./fs.mjs', import.meta.url).href;
const pkg = '/node_modules/@modelcontextprotocol/conformance/';

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(pkg)) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}

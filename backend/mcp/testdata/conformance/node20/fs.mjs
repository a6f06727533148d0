// node:fs plus the globSync of Node 22 (cwd and an exclude list), for Node 20.
import fs from 'node:fs';
import { globSync as glob } from 'glob';

export * from 'node:fs';
export default fs;

export function globSync(pattern, options = {}) {
  const { cwd = process.cwd(), exclude, withFileTypes, ...rest } = options;
  if (withFileTypes || typeof exclude === 'function' || Object.keys(rest).length > 0) {
    throw new Error('fs.globSync shim (Node 20): only the cwd and exclude (a list) options are supported');
  }
  return glob(pattern, { cwd: String(cwd), ignore: exclude ?? [] });
}

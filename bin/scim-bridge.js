#!/usr/bin/env node
// Runs the compiled CLI. In a checkout, builds first (tools/build.mjs) when dist/ is missing or older
// than the sources (so `npm start` works right after `npm install`); in an image, src/ is absent and
// dist/ runs as is.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'run.js');
const stamp = join(root, 'dist', '.build-stamp');

function newestMtime(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function needsBuild() {
  if (!existsSync(join(root, 'src'))) return false;
  if (!existsSync(entry) || !existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  const sources = ['src', join('reference-target', 'src')].map((dir) => newestMtime(join(root, dir)));
  const configs = ['tsconfig.build.json', join('reference-target', 'tsconfig.build.json')];
  const newest = Math.max(...sources, ...configs.map((file) => statSync(join(root, file)).mtimeMs));
  return newest > built;
}

if (needsBuild()) {
  process.stderr.write('scim-bridge: building (tsc)…\n');
  const result = spawnSync(process.execPath, [join(root, 'tools', 'build.mjs')], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

await import(entry);

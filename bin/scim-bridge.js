#!/usr/bin/env node
// Runs the compiled CLI. In a checkout, compiles first when dist/ is missing or older than src/
// (so `npm start` works right after `npm install`); in an image, src/ is absent and dist/ runs as is.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'run.js');
const stamp = join(root, 'dist', '.build-stamp');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function needsBuild() {
  const src = join(root, 'src');
  if (!existsSync(src)) return false;
  if (!existsSync(entry) || !existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return newestMtime(src) > built || statSync(join(root, 'tsconfig.build.json')).mtimeMs > built;
}

if (needsBuild()) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    console.error(
      'scim-bridge: dist/ is missing or stale and TypeScript is not installed: run `npm install` first.',
    );
    process.exit(1);
  }
  process.stderr.write('scim-bridge: building (tsc)…\n');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  spawnSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(stamp)}, '')`]);
}

await import(entry);

// Builds what `npm start` and the image run: the reference-target package (its own dist/), the
// bridge (dist/), and the dashboard's static files copied beside the compiled admin UI router.
// Called by `npm run build` and by bin/scim-bridge.js when dist/ is missing or stale.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

function compile(project) {
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(tsc)) {
  process.stderr.write('scim-bridge: TypeScript is not installed: run `npm install` first.\n');
  process.exit(1);
}
// Each build starts from empty output folders: nothing compiled from a deleted source stays behind.
rmSync(join(root, 'reference-target', 'dist'), { recursive: true, force: true });
rmSync(join(root, 'dist'), { recursive: true, force: true });
compile('reference-target/tsconfig.build.json');
compile('tsconfig.build.json');
const ui = join(root, 'src', 'admin', 'ui', 'public');
if (existsSync(ui)) {
  const out = join(root, 'dist', 'admin', 'ui', 'public');
  rmSync(out, { recursive: true, force: true });
  cpSync(ui, out, { recursive: true });
}
writeFileSync(join(root, 'dist', '.build-stamp'), '');

/**
 * `npm run bench [name…]`: runs the benchmarks (bench/<name>.bench.ts) one after another and prints
 * their figures. They are measurements, not tests: nothing here passes or fails on a number.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const names = readdirSync(dir)
  .filter((file) => file.endsWith('.bench.ts'))
  .map((file) => file.replace(/\.bench\.ts$/, ''))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

if (names.length === 0) {
  console.error(`no benchmark matches ${wanted.join(', ')}; available: ${readdirSync(dir).join(', ')}`);
  process.exit(1);
}

// The figures depend on the runtime: every process a bench starts runs on this one (process.execPath).
console.log(`Node.js ${process.version} (${process.execPath})`);
for (const name of names) {
  console.log(`\n=== ${name} ===`);
  const module = (await import(`./${name}.bench.ts`)) as { default: () => Promise<void> };
  await module.default();
}
process.exit(0);

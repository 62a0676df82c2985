/**
 * The first step of `npm test`: checks that it runs on the Node.js package.json names
 * (tools/node-version.ts), then what the tests need from the machine (tools/test-prerequisites.ts)
 * and, where something is missing, installs it with apt-get when it runs as root (as in CI), or stops
 * with one line naming the command to run — never a suite that fails half-way for want of a binary.
 * Silent when all is there.
 *
 *   npx tsx tools/test-setup.ts
 */
import { spawnSync } from 'node:child_process';
import { enginesNode, nodeVersionProblem } from './node-version.js';
import { decideSetup, holdServiceStarts, probeMachine, stillMissingLine } from './test-prerequisites.js';

const wrongNode = nodeVersionProblem(
  process.versions.node,
  enginesNode(new URL('../package.json', import.meta.url)),
);
if (wrongNode) {
  process.stderr.write(`${wrongNode}\n`);
  process.exit(1);
}

const root = process.getuid?.() === 0;
const decision = decideSetup(probeMachine(process.env, root));

if (decision.action === 'stop') {
  process.stderr.write(`${decision.line}\n`);
  process.exit(1);
}

if (decision.action === 'install') {
  process.stdout.write(`${decision.line}\n`);
  aptGet(['update', '-qq']);
  // The packages' own services stay stopped (aptGet exits on failure: the hook goes on exit too).
  const release = holdServiceStarts();
  process.once('exit', release);
  aptGet(['install', '-y', '-qq', '--no-install-recommends', ...decision.packages]);
  release();
  const after = probeMachine(process.env, root);
  if (after.missing.length > 0) {
    process.stderr.write(`${stillMissingLine(after.missing)}\n`);
    process.exit(1);
  }
}

/** Runs apt-get quietly; on failure prints its last lines and one line saying what failed, and exits 1. */
function aptGet(args: string[]): void {
  const result = spawnSync('apt-get', args, {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status === 0) return;
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
  if (output !== '') process.stderr.write(`${output}\n`);
  const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
  process.stderr.write(
    `npm test: apt-get ${args[0]} failed (${why}) — fix the above, then run npm test again\n`,
  );
  process.exit(1);
}

/**
 * Which Node.js the suite runs on: the versions package.json's `engines` names. In a checkout that is
 * the build `npm ci` puts in node_modules/.bin (tools/node/package.json: the official Linux x64 and
 * arm64 builds from the npm registry), which npm scripts and npx find first on PATH, whatever the
 * machine's own node is. The builds are optional packages, so on another platform the scripts fall
 * back to the machine's node: `npm test` stops there unless it is one of those versions.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

type Version = readonly [major: number, minor: number, patch: number];

const manifestSchema = z.object({ engines: z.object({ node: z.string() }) });
const buildsSchema = z.object({
  optionalDependencies: z.record(z.string(), z.string().regex(/^\d+\.\d+\.\d+$/, 'an exact version')),
});

/** `engines.node` of the package.json at `path`. */
export function enginesNode(path: string | URL): string {
  return manifestSchema.parse(JSON.parse(readFileSync(path, 'utf8'))).engines.node;
}

/** The release tools/node/package.json (at `path`) pins: one exact version for every platform's build. */
export function pinnedNode(path: string | URL): string {
  const builds = buildsSchema.parse(JSON.parse(readFileSync(path, 'utf8'))).optionalDependencies;
  const versions = [...new Set(Object.values(builds))];
  if (versions.length !== 1 || versions[0] === undefined) {
    throw new Error(
      `${String(path)}: the Node.js builds pin ${versions.join(', ') || 'nothing'}; expected one version`,
    );
  }
  return versions[0];
}

/**
 * The line `npm test` stops with when `running` (process.versions.node) is outside `engines`, else
 * undefined. Only the caret form is read (`^24.21.0`: that release and the later ones of its major
 * line, as npm reads it); any other form is a mistake in package.json and throws.
 */
export function nodeVersionProblem(running: string, engines: string): string | undefined {
  const wanted = parseVersion(/^\^(\d+)\.(\d+)\.(\d+)$/, engines);
  if (!wanted) throw new Error(`package.json engines.node is '${engines}'; expected ^major.minor.patch`);
  const have = parseVersion(/^v?(\d+)\.(\d+)\.(\d+)/, running);
  if (have && have[0] === wanted[0] && compare(have, wanted) >= 0) return undefined;
  return (
    `npm test: the suite runs on Node.js ${engines} (package.json engines), not ${running} — ` +
    `npm ci installs it into node_modules/.bin on Linux x64 and arm64; elsewhere install Node.js ` +
    `${wanted[0]}, then run npm test again`
  );
}

function parseVersion(pattern: RegExp, text: string): Version | undefined {
  const match = pattern.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

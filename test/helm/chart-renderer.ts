import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument, stringify } from 'yaml';

/**
 * Renders the chart with tools/helm-render (Go text/template + sprig, the engine Helm uses), since no
 * helm binary can be installed on the project's machines. Real: the Go renderer and the templates;
 * nothing is faked.
 */

export const REPO_DIR = fileURLToPath(new URL('../../', import.meta.url));
export const CHART_DIR = join(REPO_DIR, 'helm/scim-bridge');
export const RELEASE = { name: 'acme', namespace: 'identity' } as const;

const GO_ENV = { GO111MODULE: 'off', GOPATH: '/usr/share/gocode' };
const DEBIAN_PACKAGES = 'golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev';

const tempDirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes the renderer binary and the values files this test file wrote. */
export function cleanUp(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface Manifest {
  source: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface Rendered {
  manifests: Manifest[];
  notes: string;
  /** values.yaml deep-merged with the value files, as the templates see them. */
  values: Record<string, unknown>;
}

/** Builds the renderer into a fresh temporary directory and returns the binary's path. */
export function buildRenderer(): string {
  const binary = join(tempDir('helm-render-'), 'helm-render');
  const result = spawnSync('go', ['build', '-o', binary, './tools/helm-render'], {
    cwd: REPO_DIR,
    // Go needs a build cache; without HOME (some CI sandboxes) it gets one under the temp directory.
    env: {
      ...process.env,
      ...GO_ENV,
      ...(process.env.GOCACHE || process.env.HOME ? {} : { GOCACHE: join(tmpdir(), 'helm-render-gocache') }),
    },
    encoding: 'utf8',
  });
  if (result.error && 'code' in result.error && result.error.code === 'ENOENT') {
    throw new Error(`the chart check needs Go with sprig and yaml.v3: apt-get install ${DEBIAN_PACKAGES}`);
  }
  if (result.status !== 0) {
    throw new Error(`go build ./tools/helm-render failed (needs ${DEBIAN_PACKAGES}):\n${result.stderr}`);
  }
  return binary;
}

/** Writes a values file for one test into a fresh temporary directory. */
export function valuesFile(values: Record<string, unknown>): string {
  const file = join(tempDir('helm-values-'), 'values.yaml');
  writeFileSync(file, stringify(values));
  return file;
}

export class RenderError extends Error {
  constructor(readonly stderr: string) {
    super(`helm-render failed: ${stderr}`);
  }
}

/**
 * Runs the renderer; throws RenderError with its stderr when a template fails. `strict` renders as
 * `helm lint` does, where a missing map key is an error rather than an empty value.
 */
export function runRenderer(
  binary: string,
  valueFiles: readonly string[],
  mode: 'manifests' | 'notes' | 'values',
  options: { strict?: boolean } = {},
): string {
  const args = ['-name', RELEASE.name, '-namespace', RELEASE.namespace];
  for (const file of valueFiles) args.push('-f', file);
  if (mode !== 'manifests') args.push(`-${mode}`);
  if (options.strict) args.push('-strict');
  const result = spawnSync(binary, [...args, CHART_DIR], { encoding: 'utf8' });
  if (result.status !== 0) throw new RenderError(result.stderr);
  return result.stdout;
}

export function renderChart(binary: string, valueFiles: readonly string[]): Rendered {
  return {
    manifests: parseManifests(runRenderer(binary, valueFiles, 'manifests')),
    notes: runRenderer(binary, valueFiles, 'notes'),
    values: JSON.parse(runRenderer(binary, valueFiles, 'values')) as Record<string, unknown>,
  };
}

/**
 * Splits the stream on `---`, requires the `# Source:` comment of each document, and parses each as
 * YAML 1.1, the dialect Kubernetes reads (`on`, `0440`), failing on any error.
 */
export function parseManifests(stream: string): Manifest[] {
  const chunks = stream.split(/^---\n/m).filter((chunk) => chunk.trim() !== '');
  return chunks.map((chunk, index) => {
    const source = /^# Source: (\S+)\n/.exec(chunk)?.[1];
    if (!source) throw new Error(`document ${index} does not start with a "# Source:" comment`);
    const doc = parseDocument(chunk, { version: '1.1', uniqueKeys: true });
    if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const body: unknown = doc.toJS();
    if (!isObject(body) || typeof body.kind !== 'string')
      throw new Error(`${source}: not a Kubernetes object`);
    return { source, ...body } as Manifest;
  });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { readdirSync, readFileSync } from 'node:fs';
import { CATALOG } from '../../src/sources/registry.js';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig, type Env } from '../../src/config/load-config.js';
import { isBridgeError } from '../../src/domain/errors.js';
import { settingsFor } from '../../src/config/settings.js';
import {
  buildRenderer,
  cleanUp,
  CHART_DIR,
  REPO_DIR,
  renderChart,
  runRenderer,
  type Manifest,
  type Rendered,
} from './chart-renderer.js';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import {
  container,
  deployments,
  manifestProblems,
  ofKind,
  podLabels,
  podSpec,
  role,
  selects,
} from './manifests.js';

/**
 * The Helm chart, rendered by the Go renderer for the default values and each set in values/.
 * Real: templates, renderer, Kubernetes schemas (kubernetes-models), values.schema.json (ajv), and
 * the bridge's own loadConfig reading the rendered config file and secret files.
 */

const VALUES_DIR = join(REPO_DIR, 'test/helm/values');
const VALUE_SETS: [string, string[]][] = [
  ['default values', []],
  ...readdirSync(VALUES_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file): [string, string[]] => [file, [join(VALUES_DIR, file)]]),
];
const SECRET_ENVS = new Set(
  settingsFor(CATALOG)
    .filter((s) => s.secret)
    .map((s) => s.env),
);
const PLACEHOLDER = 'placeholder-secret-0123456789';

let renderer = '';
beforeAll(() => {
  renderer = buildRenderer();
}, 180_000);
afterAll(cleanUp);

const schema: unknown = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8'));
const validateValues = new Ajv({ allErrors: true, strict: true }).compile(schema as object);

describe.each(VALUE_SETS)('helm chart with %s', (_name, files) => {
  let r: Rendered;
  beforeAll(() => {
    r = renderChart(renderer, files);
  });
  const cfg = () => r.values.config as { http: { port: number; shutdownTimeoutSeconds: number } };

  it('passes values.schema.json', () => {
    expect(validateValues(r.values), JSON.stringify(validateValues.errors)).toBe(true);
  });

  it('renders only valid objects: Kubernetes schemas for built-in kinds, required shape for CRDs', () => {
    expect(r.manifests.flatMap(manifestProblems)).toEqual([]);
    const names = r.manifests.map((m) => `${m.kind}/${m.metadata.name}`);
    expect(new Set(names).size).toBe(names.length);
    for (const m of r.manifests) expect(m.metadata.namespace).toBe('identity');
  });

  it('runs one Deployment per role of the mode', () => {
    const expected = r.values.mode === 'all' ? ['all'] : ['serve', 'worker'];
    expect(deployments(r.manifests).map(role).sort()).toEqual(expected);
    for (const d of deployments(r.manifests)) {
      expect(container(d).args).toEqual([role(d)]);
      expect(selects(d.spec?.selector.matchLabels, podLabels(d))).toBe(true);
    }
  });

  it('mounts each secret as a read-only file and points its *_FILE variable into the mount', () => {
    for (const d of deployments(r.manifests)) {
      const c = container(d);
      const fileVars = (c.env ?? []).filter((e) => e.name.endsWith('_FILE') && e.name !== 'CONFIG_FILE');
      const volume = podSpec(d).volumes?.find((v) => v.name === 'secrets');
      const mount = c.volumeMounts?.find((m) => m.name === 'secrets');
      const items = (volume?.projected?.sources ?? []).flatMap((s) => s.secret?.items ?? []);
      expect(items.map((i) => i.path).sort()).toEqual(
        fileVars.map((e) => e.name.replace(/_FILE$/, '')).sort(),
      );
      for (const e of fileVars) {
        expect(SECRET_ENVS).toContain(e.name.replace(/_FILE$/, ''));
        expect(e.value).toBe(`${mount?.mountPath}/${e.name.replace(/_FILE$/, '')}`);
        expect(mount?.readOnly).toBe(true);
      }
      expect((c.env ?? []).filter((e) => SECRET_ENVS.has(e.name))).toEqual([]);
    }
  });

  it('keeps secret values out of everything but Secrets', () => {
    const secrets = Object.values((r.values.secrets as { values: Record<string, string> }).values);
    const known = [...secrets, (r.values.redis as { url: string }).url].filter((v) => v !== '');
    const visible = JSON.stringify(r.manifests.filter((m) => m.kind !== 'Secret')) + r.notes;
    for (const value of known) expect(visible).not.toContain(value);
  });

  it('probes /healthz (startup, liveness) and /readyz (readiness) on the http port', () => {
    for (const d of deployments(r.manifests)) {
      const c = container(d);
      expect(c.ports).toContainEqual({ name: 'http', containerPort: cfg().http.port, protocol: 'TCP' });
      expect(c.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    }
  });

  it('runs non-root on a read-only root filesystem, no capabilities, /tmp an emptyDir', () => {
    for (const d of deployments(r.manifests)) {
      const pod = podSpec(d);
      const sc = container(d).securityContext;
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(sc).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(sc?.capabilities?.drop).toEqual(['ALL']);
      const tmp = container(d).volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
      expect(pod.automountServiceAccountToken).toBe(false);
    }
  });

  it('gives pods more time to stop than preStop plus the shutdown timeout', () => {
    for (const d of deployments(r.manifests)) {
      const command = container(d).lifecycle?.preStop?.exec?.command ?? ['sleep', '0'];
      const needed = cfg().http.shutdownTimeoutSeconds + Number(command[1]);
      expect(podSpec(d).terminationGracePeriodSeconds).toBeGreaterThan(needed);
    }
  });

  it('annotates pods with checksums of the config and the secrets', () => {
    for (const d of deployments(r.manifests)) {
      const annotations = d.spec?.template.metadata?.annotations ?? {};
      expect(annotations['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
      expect(annotations['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('routes the Service, Ingress, PDBs and HPAs to the right pods', () => {
    const ds = deployments(r.manifests);
    const httpRole = r.values.mode === 'all' ? 'all' : 'serve';
    const [service] = ofKind(r.manifests, 'Service').filter((s) => !s.metadata.name.endsWith('-metrics'));
    const spec = service?.spec as { selector: Record<string, string>; ports: { name: string }[] };
    expect(ds.filter((d) => selects(spec.selector, podLabels(d))).map(role)).toEqual([httpRole]);
    for (const ingress of ofKind(r.manifests, 'Ingress')) {
      const backends = JSON.stringify(ingress.spec).match(/"service":\{[^}]*\}/g) ?? [];
      expect(backends.length).toBeGreaterThan(0);
      for (const b of backends) expect(b).toContain(`"name":"${service?.metadata.name}"`);
    }
    for (const pdb of ofKind(r.manifests, 'PodDisruptionBudget')) {
      const selector = (pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector
        .matchLabels;
      expect(ds.filter((d) => selects(selector, podLabels(d)))).toHaveLength(1);
    }
    for (const hpa of ofKind(r.manifests, 'HorizontalPodAutoscaler')) {
      const target = ds.find(
        (d) => d.metadata?.name === (hpa.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name,
      );
      expect(target?.spec?.replicas).toBeUndefined();
    }
  });

  it('renders a config file and secret files that the bridge itself loads', () => {
    for (const d of deployments(r.manifests)) {
      const env: Env = Object.fromEntries((container(d).env ?? []).map((e) => [e.name, e.value]));
      const load = () => loadConfig(env, CATALOG, { readFile: podFiles(r.manifests, d) });
      if (files.length > 0) {
        expect(load().http.port).toBe(cfg().http.port);
        continue;
      }
      // The default values lack exactly the settings NOTES.txt warns about.
      expect(problemsOf(load).map((p) => p.split(':')[0])).toEqual([
        'REDIS_URL',
        'TARGET_URL',
        'TARGET_TOKEN',
      ]);
      expect(r.notes).toMatch(/WARNING: no Redis/);
    }
  });

  it('renders as strictly as helm lint (a missing map key is an error)', () => {
    expect(runRenderer(renderer, files, 'manifests', { strict: true })).toContain('kind: Deployment');
    expect(runRenderer(renderer, files, 'notes', { strict: true })).toBe(r.notes);
  });

  it('renders NOTES.txt naming the release', () => {
    expect(r.notes).toContain('release acme in namespace identity');
  });
});

describe('helm chart image', () => {
  it('is by default the image of the package version, the appVersion of the chart', () => {
    const { version } = z
      .object({ version: z.string() })
      .parse(JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8')));
    const images = deployments(renderChart(renderer, []).manifests).map((d) => container(d).image);
    expect(images).toEqual([`scim-bridge:${version}`, `scim-bridge:${version}`]);
  });
});

function problemsOf(load: () => unknown): readonly string[] {
  try {
    load();
  } catch (error) {
    if (isBridgeError(error, 'config_invalid')) return error.problems;
    throw error;
  }
  return [];
}

/** The files a pod sees: the ConfigMap's config file and the projected secret items. */
function podFiles(manifests: readonly Manifest[], d: IDeployment): (path: string) => string {
  const files = new Map<string, string>();
  const c = container(d);
  const mountOf = (volume: string) => c.volumeMounts?.find((m) => m.name === volume)?.mountPath ?? '';
  const [configMap] = ofKind(manifests, 'ConfigMap');
  files.set(
    `${mountOf('config')}/config.yaml`,
    (configMap?.data as Record<string, string>)['config.yaml'] ?? '',
  );
  for (const source of podSpec(d).volumes?.find((v) => v.name === 'secrets')?.projected?.sources ?? []) {
    const own = ofKind(manifests, 'Secret').find((s) => s.metadata.name === source.secret?.name);
    for (const item of source.secret?.items ?? []) {
      const data = own?.data as Record<string, string> | undefined;
      const value = own ? data?.[item.key] : undefined;
      if (own && value === undefined) throw new Error(`Secret ${own.metadata.name} lacks key ${item.key}`);
      const text =
        value === undefined ? placeholderFor(item.path) : Buffer.from(value, 'base64').toString('utf8');
      files.set(`${mountOf('secrets')}/${item.path}`, text);
    }
  }
  return (path: string) => files.get(path) ?? readFileSync(path, 'utf8');
}

/** Content standing in for a key of a Secret made outside the chart. */
function placeholderFor(env: string): string {
  return env === 'REDIS_URL' ? 'redis://redis.example.com:6379/0' : PLACEHOLDER;
}

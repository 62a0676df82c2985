import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsFor } from '../../src/config/settings.js';
import { CATALOG } from '../../src/sources/registry.js';
import {
  buildRenderer,
  cleanUp,
  CHART_DIR,
  isObject,
  renderChart,
  RenderError,
  REPO_DIR,
  runRenderer,
  valuesFile,
  type Manifest,
} from './chart-renderer.js';
import { container, deployments, ofKind, podLabels, podSpec, role, selects } from './manifests.js';

/**
 * What particular values switch on and off, the alerts, and the guards against bad values. Real: the
 * Go renderer and the chart; value files are written to temporary directories.
 */

const valuesSet = (name: string) => join(REPO_DIR, 'test/helm/values', name);
let renderer = '';
beforeAll(() => {
  renderer = buildRenderer();
}, 180_000);
afterAll(cleanUp);

const named = (manifests: readonly Manifest[], kind: string, name: string) => {
  const found = ofKind(manifests, kind).find((m) => m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found as Manifest & { spec: Record<string, unknown>; data: Record<string, string> };
};
const annotation = (manifests: readonly Manifest[], key: string) =>
  deployments(manifests).map((d) => d.spec?.template.metadata?.annotations?.[key]);

describe('helm chart roles and scaling', () => {
  it('splits serve and worker by default, two replicas each, without HPA or Secret', () => {
    const { manifests } = renderChart(renderer, []);
    const ds = deployments(manifests);
    expect(ds.map((d) => [d.metadata?.name, d.spec?.replicas])).toEqual([
      ['acme-scim-bridge-serve', 2],
      ['acme-scim-bridge-worker', 2],
    ]);
    expect(ofKind(manifests, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    const [serve, worker] = ds;
    expect(serve && container(serve).lifecycle?.preStop?.exec?.command).toEqual(['sleep', '5']);
    expect(worker && container(worker).lifecycle).toBeUndefined();
    expect(ds.map((d) => podSpec(d).terminationGracePeriodSeconds)).toEqual([35, 30]);
  });

  it('hands the worker replicas to an HPA and keeps serve at its own count', () => {
    const { manifests } = renderChart(renderer, [valuesSet('split-autoscaling-monitoring.yaml')]);
    expect(named(manifests, 'Deployment', 'acme-scim-bridge-serve').spec.replicas).toBe(3);
    expect(named(manifests, 'Deployment', 'acme-scim-bridge-worker').spec.replicas).toBeUndefined();
    const hpas = ofKind(manifests, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.metadata.name)).toEqual(['acme-scim-bridge-worker']);
    expect(hpas[0]?.spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'acme-scim-bridge-worker' },
      minReplicas: 2,
      maxReplicas: 12,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
        },
        {
          type: 'Resource',
          resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 80 } },
        },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 600 } },
    });
    expect(named(manifests, 'PodDisruptionBudget', 'acme-scim-bridge-serve').spec).toMatchObject({
      minAvailable: 2,
    });
    expect(named(manifests, 'PodDisruptionBudget', 'acme-scim-bridge-worker').spec).toMatchObject({
      maxUnavailable: 1,
    });
    const secret = named(manifests, 'Secret', 'acme-scim-bridge');
    const decoded = Object.fromEntries(
      Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    );
    expect(decoded).toEqual({
      REDIS_URL: 'redis://:s3cret@redis-master.redis.svc:6379/0',
      TARGET_TOKEN: 'platform-scim-token-0123456789',
      WEBHOOK_SECRET: 'webhook-hmac-secret-0123456789',
      METRICS_TOKEN: 'metrics-bearer-token-0123456789',
    });
  });

  it('runs one `all` Deployment behind the Service and Ingress, on Secrets made outside the chart', () => {
    const { manifests } = renderChart(renderer, [valuesSet('all-ingress-existing-secret.yaml')]);
    const [all, ...others] = deployments(manifests);
    expect(others).toEqual([]);
    expect(all?.metadata?.name).toBe('acme-scim-bridge-all');
    expect(all?.spec?.replicas).toBe(3);
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    const sources = all ? podSpec(all).volumes?.find((v) => v.name === 'secrets')?.projected?.sources : [];
    expect(sources?.map((s) => [s.secret?.name, s.secret?.items?.map((i) => `${i.key}->${i.path}`)])).toEqual(
      [
        ['redis-credentials', ['url->REDIS_URL']],
        [
          'scim-bridge-tokens',
          [
            'admin-token->ADMIN_TOKEN',
            'inbound-scim-token->INBOUND_SCIM_TOKEN',
            'okta-api-token->OKTA_API_TOKEN',
            'okta-hook-secret->OKTA_HOOK_SECRET',
            'target-token->TARGET_TOKEN',
          ],
        ],
      ],
    );
    const ingress = named(manifests, 'Ingress', 'acme-scim-bridge');
    expect(ingress.spec).toMatchObject({
      ingressClassName: 'nginx',
      tls: [{ secretName: 'scim-bridge-tls', hosts: ['scim.acme.example.com'] }],
    });
    expect(JSON.stringify(ingress.spec)).toContain('"path":"/webhooks"');
  });

  it('runs pods as the user the Dockerfile creates', () => {
    const user = /^USER (\d+):(\d+)$/m.exec(readFileSync(join(REPO_DIR, 'Dockerfile'), 'utf8'));
    for (const d of deployments(renderChart(renderer, []).manifests)) {
      expect(podSpec(d).securityContext).toMatchObject({
        runAsUser: Number(user?.[1]),
        runAsGroup: Number(user?.[2]),
      });
      expect(container(d).securityContext).toMatchObject({ runAsUser: Number(user?.[1]) });
    }
  });

  it('pins the image by digest and mounts extra volumes', () => {
    const { manifests } = renderChart(renderer, [valuesSet('production.yaml')]);
    for (const d of deployments(manifests)) {
      expect(container(d).image).toBe(
        'registry.example.com/identity/scim-bridge:0.2.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      );
      expect(container(d).volumeMounts).toContainEqual({
        name: 'ldap-ca',
        mountPath: '/etc/scim-bridge/ldap-ca',
        readOnly: true,
      });
      expect(podSpec(d).terminationGracePeriodSeconds).toBe(60);
    }
    const config: unknown = parse(
      named(manifests, 'ConfigMap', 'acme-scim-bridge-config').data['config.yaml'] ?? '',
    );
    expect(config).toMatchObject({
      redis: { sentinel: { name: 'mymaster' }, minReplicas: 1, replicaTimeoutMs: 500 },
      directory: { source: 'ldap' },
    });
  });
});

describe('helm chart monitoring', () => {
  it('scrapes every pod through a headless metrics Service, with the metrics token', () => {
    const { manifests } = renderChart(renderer, [valuesSet('split-autoscaling-monitoring.yaml')]);
    const service = named(manifests, 'Service', 'acme-scim-bridge-metrics');
    expect(service.spec.clusterIP).toBe('None');
    const selector = service.spec.selector as Record<string, string>;
    expect(
      deployments(manifests)
        .filter((d) => selects(selector, podLabels(d)))
        .map(role),
    ).toEqual(['serve', 'worker']);
    const monitor = named(manifests, 'ServiceMonitor', 'acme-scim-bridge');
    expect(monitor.metadata.labels?.release).toBe('prometheus');
    const monitorSelector = (monitor.spec.selector as { matchLabels: Record<string, string> }).matchLabels;
    expect(selects(monitorSelector, service.metadata.labels ?? {})).toBe(true);
    expect(monitor.spec.endpoints).toEqual([
      {
        port: 'http',
        path: '/metrics',
        interval: '60s',
        scrapeTimeout: '10s',
        authorization: { type: 'Bearer', credentials: { name: 'acme-scim-bridge', key: 'METRICS_TOKEN' } },
      },
    ]);
  });

  it('ships the five alerts with thresholds, labels and this release’s selector from values', () => {
    const { manifests } = renderChart(renderer, [valuesSet('split-autoscaling-monitoring.yaml')]);
    const rules = alertRules(named(manifests, 'PrometheusRule', 'acme-scim-bridge'));
    expect(rules.map((r) => [r.alert, r.for])).toEqual([
      ['ScimBridgeTargetAuthFailed', '5m'],
      ['ScimBridgeTargetUnavailable', '15m'],
      ['ScimBridgeFailuresGrowing', undefined],
      ['ScimBridgeSyncOverdue', undefined],
      ['ScimBridgeQueueBacklog', '15m'],
    ]);
    for (const rule of rules) {
      expect(rule.expr).toContain('namespace="identity",job="acme-scim-bridge-metrics"');
      expect(rule.labels.team).toBe('identity');
    }
    expect(rules[3]?.expr).toMatch(/> 13 \* 3600$/);
    expect(rules[4]?.expr).toMatch(/state="waiting"}\) > 5000$/);
  });

  it('matches docs/prometheus-alerts.yaml rule for rule', () => {
    const file = valuesFile({ prometheusRule: { enabled: true, metricSelector: 'job="scim-bridge"' } });
    const { manifests } = renderChart(renderer, [file]);
    const rule = named(manifests, 'PrometheusRule', 'acme-scim-bridge');
    const docs: unknown = parse(readFileSync(join(REPO_DIR, 'docs/prometheus-alerts.yaml'), 'utf8'));
    expect(rule.spec.groups).toEqual((docs as { groups: unknown }).groups);
  });

  it('leaves out the sync-overdue alert when no full sync is scheduled', () => {
    const file = valuesFile({
      prometheusRule: { enabled: true },
      config: { reconcile: { syncSchedule: '' } },
    });
    const rules = alertRules(
      named(renderChart(renderer, [file]).manifests, 'PrometheusRule', 'acme-scim-bridge'),
    );
    expect(rules.map((r) => r.alert)).not.toContain('ScimBridgeSyncOverdue');
    expect(rules).toHaveLength(4);
  });
});

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
}
function alertRules(rule: Manifest & { spec: Record<string, unknown> }): AlertRule[] {
  return (rule.spec.groups as { rules: AlertRule[] }[]).flatMap((g) => g.rules);
}

describe('helm chart guards', () => {
  const schema: unknown = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8'));
  const validate = new Ajv({ allErrors: true, strict: true }).compile(schema as object);
  const invalid: Record<string, string> = {
    'bogus-mode.yaml': '/mode',
    'unknown-top-level-key.yaml': '',
    'secret-in-config.yaml': '/config/target',
    'short-admin-token.yaml': '/secrets/values/ADMIN_TOKEN',
  };

  it('has an expectation for every file in invalid-values/', () => {
    expect(readdirSync(join(REPO_DIR, 'test/helm/invalid-values')).sort()).toEqual(
      Object.keys(invalid).sort(),
    );
  });

  it.each(Object.entries(invalid))('values.schema.json rejects %s at "%s"', (file, path) => {
    const merged: unknown = JSON.parse(
      runRenderer(renderer, [join(REPO_DIR, 'test/helm/invalid-values', file)], 'values'),
    );
    expect(validate(merged)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain(path);
  });

  it('fails to render an unknown mode or a grace period the shutdown does not fit in', () => {
    const render = (values: Record<string, unknown>) => () =>
      runRenderer(renderer, [valuesFile(values)], 'manifests');
    expect(render({ mode: 'bogus' })).toThrow(/mode must be split or all, not "bogus"/);
    expect(render({ terminationGracePeriodSeconds: 30 })).toThrow(RenderError);
    expect(render({ terminationGracePeriodSeconds: 30 })).toThrow(
      /terminationGracePeriodSeconds \(30\) must exceed .* \(30\)/,
    );
  });

  it('rolls the pods on config and secret changes only', () => {
    const base = renderChart(renderer, []).manifests;
    const logChanged = renderChart(renderer, [valuesFile({ config: { log: { level: 'debug' } } })]).manifests;
    const tokenSet = renderChart(renderer, [
      valuesFile({ secrets: { values: { TARGET_TOKEN: 'x'.repeat(20) } } }),
    ]);
    expect(annotation(logChanged, 'checksum/config')).not.toEqual(annotation(base, 'checksum/config'));
    expect(annotation(logChanged, 'checksum/secret')).toEqual(annotation(base, 'checksum/secret'));
    expect(annotation(tokenSet.manifests, 'checksum/secret')).not.toEqual(
      annotation(base, 'checksum/secret'),
    );
    expect(annotation(tokenSet.manifests, 'checksum/config')).toEqual(annotation(base, 'checksum/config'));
  });
});

describe('helm chart values.yaml', () => {
  const text = readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8');

  it('documents every key with a comment (Kubernetes-shaped blocks excepted)', () => {
    const exempt = [
      /^(serve|worker|all)\.resources\./,
      /\.behavior\./,
      /^probes\.\w+\./,
      /^(updateStrategy|podSecurityContext|securityContext)\./,
      /^ingress\.hosts\./,
    ];
    const lines = text.split('\n');
    const stack: { indent: number; key: string }[] = [];
    const undocumented: string[] = [];
    lines.forEach((line, i) => {
      const match = /^( *)([A-Za-z_][\w-]*):/.exec(line);
      if (!match) return;
      const indent = match[1]?.length ?? 0;
      while ((stack.at(-1)?.indent ?? -1) >= indent) stack.pop();
      stack.push({ indent, key: match[2] ?? '' });
      const path = stack.map((s) => s.key).join('.');
      const previous = lines
        .slice(0, i)
        .reverse()
        .find((l) => l.trim() !== '');
      if (!exempt.some((re) => re.test(path)) && !previous?.trim().startsWith('#')) undocumented.push(path);
    });
    expect(undocumented).toEqual([]);
  });

  it('mirrors every non-secret setting of config/default.yaml under `config`, and nothing else', () => {
    const defaults = leaves(parse(readFileSync(join(REPO_DIR, 'config/default.yaml'), 'utf8')));
    const chart = leaves((parse(text) as { config: unknown }).config);
    const secrets = settingsFor(CATALOG)
      .filter((s) => s.secret)
      .map((s) => s.path.join('.'));
    const expected = [...defaults].filter(([path]) => !secrets.includes(path));
    expect([...chart].sort()).toEqual(expected.sort());
  });
});

/** path → type of every leaf (scalars, lists and empty mappings) of a parsed YAML tree. */
function leaves(tree: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (!isObject(tree) || (prefix !== '' && Object.keys(tree).length === 0)) {
    out.set(prefix, Array.isArray(tree) ? 'list' : typeof tree);
    return out;
  }
  for (const [key, value] of Object.entries(tree)) {
    for (const entry of leaves(value, prefix ? `${prefix}.${key}` : key)) out.set(...entry);
  }
  return out;
}

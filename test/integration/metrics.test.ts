import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  auth,
  BAD_USER,
  settledSync,
  snapshotOf,
  startAdminFixture,
  startSync,
  type AdminFixture,
} from './admin-fixture.js';

// Real: a bridge (HTTP, workers) against the reference target, Redis, prom-client; the counters
// are read back from GET /metrics as Prometheus scrapes them.

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format (one sample per line). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] ?? ''] = pair[2] ?? '';
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return found.length === 0 ? undefined : found.reduce((sum, s) => sum + s.value, 0);
}

const docs = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

function dashboardExprs(): string[] {
  const dashboard = JSON.parse(docs('grafana-dashboard.json')) as {
    panels: { id: number; type: string; targets?: { expr: string }[] }[];
  };
  const ids = dashboard.panels.map((p) => p.id);
  expect(new Set(ids).size).toBe(ids.length);
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
}

function alertExprs(): string[] {
  const rules = parseYaml(docs('prometheus-alerts.yaml')) as { groups: { rules: { expr: string }[] }[] };
  return rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
}

describe('Prometheus metrics', () => {
  let fixture: AdminFixture | undefined;

  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  const scrape = async (f: AdminFixture) => {
    const res = await f.http().get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return { text: res.text, samples: parseMetrics(res.text) };
  };

  it('counts what a full sync did, with bounded labels', async () => {
    const f = (fixture = await startAdminFixture());
    const before = await scrape(f);
    expect(value(before.samples, 'scim_bridge_target_health', { state: 'reachable' })).toBe(1);
    expect(value(before.samples, 'scim_bridge_last_full_sync_timestamp_seconds')).toBe(0);

    const jobId = await startSync(f, { snapshot: snapshotOf(6) });
    const record = await settledSync(f, jobId);
    await startSync(f, { dryRun: true }).then((id) => settledSync(f, id));
    await f.engine.drain();
    const { text, samples } = await scrape(f);

    expect(
      value(samples, 'scim_bridge_target_requests_total', { method: 'POST', route: '/Users', status: '201' }),
    ).toBe(6);
    expect(
      value(samples, 'scim_bridge_target_requests_total', {
        method: 'POST',
        route: '/Groups',
        status: '201',
      }),
    ).toBe(2);
    expect(
      value(samples, 'scim_bridge_target_requests_total', { method: 'GET', route: '/Users' }),
    ).toBeGreaterThan(0);
    expect(
      value(samples, 'scim_bridge_target_request_duration_seconds_count', {
        method: 'POST',
        route: '/Users',
      }),
    ).toBe(6);
    expect(
      value(samples, 'scim_bridge_reconcile_changes_total', {
        kind: 'user',
        action: 'created',
        result: 'ok',
      }),
    ).toBe(6);
    expect(
      value(samples, 'scim_bridge_reconcile_changes_total', {
        kind: 'group',
        action: 'created',
        result: 'ok',
      }),
    ).toBe(2);
    for (const state of ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed']) {
      expect(value(samples, 'scim_bridge_queue_jobs', { queue: 'reconcile', state }), state).toBe(0);
    }
    expect(
      value(samples, 'scim_bridge_queue_jobs', { queue: 'sync', state: 'completed' }),
    ).toBeGreaterThanOrEqual(2);
    const finished = Date.parse(record.finishedAt as string) / 1000;
    expect(value(samples, 'scim_bridge_last_full_sync_timestamp_seconds')).toBeCloseTo(finished, 0);
    expect(value(samples, 'scim_bridge_sync_duration_seconds_count', { result: 'completed' })).toBe(2);
    expect(value(samples, 'scim_bridge_target_health', { state: 'reachable' })).toBe(1);
    expect(value(samples, 'scim_bridge_target_health', { state: 'auth-failed' })).toBe(0);
    expect(value(samples, 'scim_bridge_failures')).toBe(0);
    expect(value(samples, 'scim_bridge_inbound_requests_total', { source: 'admin' })).toBeGreaterThan(0);
    expect(value(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);

    // No identity in any label: ids, userNames and target ids stay out of /metrics.
    const labelValues = samples.flatMap((s) => Object.values(s.labels));
    for (const u of snapshotOf(6).users) {
      expect(labelValues).not.toContain(u.id);
      expect(text).not.toContain(u.userName);
    }
    for (const u of f.target.users()) expect(text).not.toContain(u.id);

    // The shipped Grafana dashboard and alert rules query only what /metrics exports.
    const exported = new Set(samples.map((sample) => sample.name));
    for (const expr of [...dashboardExprs(), ...alertExprs()]) {
      for (const [name] of expr.matchAll(/\b(?:scim_bridge|process|nodejs)_\w+/g)) {
        expect(exported.has(name), `${name} in ${expr}`).toBe(true);
      }
    }
  });

  it('exports permanent failures and the target health the workers recorded', async () => {
    const f = (fixture = await startAdminFixture({ RECONCILE_ATTEMPTS: '1' }));
    await f.engine.bridge.store.api.upsertUser(BAD_USER);
    await f.engine.drain();
    let samples = (await scrape(f)).samples;
    expect(value(samples, 'scim_bridge_failures')).toBe(1);
    expect(
      value(samples, 'scim_bridge_reconcile_changes_total', {
        kind: 'user',
        action: 'fail',
        result: 'failed',
      }),
    ).toBe(1);
    expect(
      value(samples, 'scim_bridge_target_requests_total', { method: 'POST', route: '/Users', status: '400' }),
    ).toBe(1);

    f.target.setToken('a-rotated-token-the-bridge-lacks');
    await f.engine.bridge.store.api.upsertUser({ id: 'u-auth', userName: 'auth@example.com', active: true });
    await expect
      .poll(
        async () => value((await scrape(f)).samples, 'scim_bridge_target_health', { state: 'auth-failed' }),
        {
          timeout: 15_000,
        },
      )
      .toBe(1);
    samples = (await scrape(f)).samples;
    expect(value(samples, 'scim_bridge_target_health', { state: 'reachable' })).toBe(0);
    const status = (await f.http().get('/admin/status').set(auth).expect(200)).body;
    expect(status.target.state).toBe('auth-failed');
  });
});

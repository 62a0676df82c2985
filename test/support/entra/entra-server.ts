import { createServer } from 'node:http';
import { tenantControl, type EntraTenantControl } from './entra-control.js';
import type { DeltaChaos } from './entra-delta.js';
import type { DeltaResource } from './entra-delta-log.js';
import { EntraEmulation, listen, type EntraRequestRecord } from './entra-emulation.js';
import type { FaultReply, FaultTarget } from './entra-faults.js';
import { newGuid } from './entra-ids.js';
import { EntraTenant } from './entra-tenant.js';

/**
 * A local emulation of Microsoft Entra ID's sign-in (the client credentials grant) and of the
 * Microsoft Graph v1.0 directory reads, from Microsoft's public documents; see
 * test/support/entra-graph.ts for what it does and the handle's API.
 */
export interface EntraGraphServer extends EntraTenantControl {
  /** Authority host: token URL `${loginUrl}/${tenant}/oauth2/v2.0/token`. */
  readonly loginUrl: string;
  /** Graph's origin; requests go to `${graphUrl}/v1.0/…`. */
  readonly graphUrl: string;
  /** The only scope the token endpoint grants: `${graphUrl}/.default`. */
  readonly scope: string;
  readonly clock: { now(): number; advance(ms: number): void };
  addTenant(options?: { domain?: string }): EntraTenantControl;
  setTokenLifetime(seconds: number): void;
  revokeTokens(clientId?: string): void;
  setMaxAssertionLifetime(seconds: number): void;
  setDeltaPaging(paging: {
    objectsPerPage?: number;
    membersPerPage?: number;
    removedInInitialRound?: boolean;
  }): void;
  setDeltaTokenMaxAge(ms: number): void;
  setDeltaChaos(chaos: DeltaChaos): void;
  failDeltaLinks(
    failure: { status: 410 } | { status: 400; code: 'resyncRequired' | 'syncStateNotFound' },
    options?: { count?: number; resource?: DeltaResource },
  ): void;
  setListScanLimit(entries: number): void;
  readonly faults: {
    next(count: number, reply: FaultReply, target?: FaultTarget): void;
    every(n: number, reply: FaultReply, target?: FaultTarget): void;
    randomly(fraction: number, seed: number, reply: FaultReply, target?: FaultTarget): void;
    clear(): void;
  };
  setResourceUnitQuota(unitsPer10Seconds: number | undefined): void;
  drainResourceUnits(clientId: string, tenantId?: string): void;
  setLinkOrigin(origin: string | undefined): void;
  requests(): EntraRequestRecord[];
  close(): Promise<void>;
}

export interface EntraGraphOptions {
  /** The default tenant's primary domain (default `contoso.onmicrosoft.com`). */
  domain?: string;
}

export async function startEntraGraph(options: EntraGraphOptions = {}): Promise<EntraGraphServer> {
  const entra = new EntraEmulation();
  const login = createServer((req, res) => {
    entra.login(req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  const graph = createServer((req, res) => entra.graph(req, res));
  // Longer than a client's idle keep-alive, so the server never closes a socket a client is
  // about to reuse (an ECONNRESET the service itself would not cause).
  for (const server of [login, graph]) server.keepAliveTimeout = 65_000;
  entra.loginUrl = await listen(login);
  entra.graphUrl = await listen(graph);
  const addTenant = (domain: string) => {
    const tenant = new EntraTenant(newGuid(), domain.toLowerCase(), entra.clock);
    if (entra.tenant(tenant.domain)) throw new Error(`a tenant with the domain ${domain} already exists`);
    entra.tenants.set(tenant.id, tenant);
    return tenantControl(tenant, entra.loginUrl);
  };
  const main = addTenant(options.domain ?? 'contoso.onmicrosoft.com');
  const close = async () => {
    const closing = [login, graph].map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    await Promise.all(closing);
  };
  return {
    ...main,
    loginUrl: entra.loginUrl,
    graphUrl: entra.graphUrl,
    scope: `${entra.graphUrl}/.default`,
    clock: { now: () => entra.clock.now(), advance: (ms) => entra.clock.advance(ms) },
    addTenant: (more = {}) => addTenant(more.domain ?? `tenant${entra.tenants.size + 1}.onmicrosoft.com`),
    ...settingsControl(entra, main.tenantId),
    requests: () => [...entra.log],
    close,
  };
}

type Settings = Omit<
  EntraGraphServer,
  keyof EntraTenantControl | 'loginUrl' | 'graphUrl' | 'scope' | 'clock' | 'addTenant' | 'requests' | 'close'
>;

/** Knobs of the whole emulation: token and assertion lifetimes, delta, lists, faults, throttling. */
function settingsControl(entra: EntraEmulation, mainTenantId: string): Settings {
  const delta = entra.delta.settings;
  return {
    setTokenLifetime: (seconds) =>
      void (entra.tokens.lifetimeSeconds = positive(seconds, 'a token lifetime')),
    revokeTokens: (clientId) => entra.tokens.revokeAll(clientId),
    setMaxAssertionLifetime: (s) =>
      void (entra.maxAssertionLifetimeSeconds = positive(s, 'an assertion lifetime')),
    setDeltaPaging: (paging) => {
      if (paging.objectsPerPage !== undefined)
        delta.objectsPerPage = positive(paging.objectsPerPage, 'objectsPerPage');
      if (paging.membersPerPage !== undefined)
        delta.membersPerPage = positive(paging.membersPerPage, 'membersPerPage');
      if (paging.removedInInitialRound !== undefined)
        delta.removedInInitialRound = paging.removedInInitialRound;
    },
    setDeltaTokenMaxAge: (ms) => void (delta.tokenMaxAgeMs = positive(ms, 'a delta token age')),
    setDeltaChaos: (chaos) => entra.delta.setChaos(chaos),
    failDeltaLinks: (failure, options = {}) => {
      const code = failure.status === 410 ? 'resyncRequired' : failure.code;
      const remaining = positive(options.count ?? 1, 'a failure count');
      entra.delta.failures.push({
        status: failure.status,
        code,
        remaining,
        ...(options.resource ? { resource: options.resource } : {}),
      });
    },
    setListScanLimit: (entries) => void (entra.lists.scanLimit = positive(entries, 'a scan limit')),
    faults: {
      next: (count, reply, target) => entra.faults.next(count, reply, target),
      every: (n, reply, target) => entra.faults.every(n, reply, target),
      randomly: (fraction, seed, reply, target) => entra.faults.randomly(fraction, seed, reply, target),
      clear: () => entra.faults.clear(),
    },
    setResourceUnitQuota: (units) => void (entra.buckets.quota = units),
    drainResourceUnits: (clientId, tenantId) =>
      entra.buckets.drain(`${tenantId ?? mainTenantId}/${clientId}`),
    setLinkOrigin: (origin) => void (entra.linkOrigin = origin?.replace(/\/$/, '')),
  };
}

function positive(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`${what} must be a positive whole number, not ${n}`);
  return n;
}

export type { DeltaChaos, DeltaResource, EntraRequestRecord, EntraTenantControl, FaultReply, FaultTarget };

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
  setDeltaPaging(paging: { objectsPerPage?: number; membersPerPage?: number; removedInInitialRound?: boolean }): void;
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
  const positive = (n: number, what: string) => {
    if (!Number.isInteger(n) || n < 1) throw new Error(`${what} must be a positive whole number, not ${n}`);
    return n;
  };
  return {
    ...main,
    loginUrl: entra.loginUrl,
    graphUrl: entra.graphUrl,
    scope: `${entra.graphUrl}/.default`,
    clock: { now: () => entra.clock.now(), advance: (ms) => entra.clock.advance(ms) },
    addTenant: (tenantOptions = {}) => addTenant(tenantOptions.domain ?? `tenant${entra.tenants.size + 1}.onmicrosoft.com`),
    setTokenLifetime: (seconds) => void (entra.tokens.lifetimeSeconds = positive(seconds, 'a token lifetime')),
    revokeTokens: (clientId) => entra.tokens.revokeAll(clientId),
    setMaxAssertionLifetime: (seconds) => void (entra.maxAssertionLifetimeSeconds = positive(seconds, 'an assertion lifetime')),
    setDeltaPaging: (paging) => {
      const settings = entra.delta.settings;
      if (paging.objectsPerPage !== undefined) settings.objectsPerPage = positive(paging.objectsPerPage, 'objectsPerPage');
      if (paging.membersPerPage !== undefined) settings.membersPerPage = positive(paging.membersPerPage, 'membersPerPage');
      if (paging.removedInInitialRound !== undefined) settings.removedInInitialRound = paging.removedInInitialRound;
    },
    setDeltaTokenMaxAge: (ms) => void (entra.delta.settings.tokenMaxAgeMs = positive(ms, 'a delta token age')),
    setDeltaChaos: (chaos) => entra.delta.setChaos(chaos),
    failDeltaLinks: (failure, failOptions = {}) => {
      const code = failure.status === 410 ? 'resyncRequired' : failure.code;
      const count = positive(failOptions.count ?? 1, 'a failure count');
      entra.delta.failures.push({ status: failure.status, code, remaining: count, ...(failOptions.resource ? { resource: failOptions.resource } : {}) });
    },
    setListScanLimit: (entries) => void (entra.lists.scanLimit = positive(entries, 'a scan limit')),
    faults: {
      next: (count, reply, target) => entra.faults.next(count, reply, target),
      every: (n, reply, target) => entra.faults.every(n, reply, target),
      randomly: (fraction, seed, reply, target) => entra.faults.randomly(fraction, seed, reply, target),
      clear: () => entra.faults.clear(),
    },
    setResourceUnitQuota: (units) => void (entra.buckets.quota = units),
    drainResourceUnits: (clientId, tenantId) => entra.buckets.drain(`${tenantId ?? main.tenantId}/${clientId}`),
    setLinkOrigin: (origin) => void (entra.linkOrigin = origin?.replace(/\/$/, '')),
    requests: () => [...entra.log],
    close: async () => {
      await Promise.all(
        [login, graph].map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}

export type { DeltaChaos, DeltaResource, EntraRequestRecord, EntraTenantControl, FaultReply, FaultTarget };

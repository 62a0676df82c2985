/**
 * The Entra emulation (test/support/entra/): Microsoft Entra ID's token endpoint (client
 * credentials with a secret or a certificate) and the Microsoft Graph v1.0 directory reads the
 * `entra` source makes, strict to Microsoft's public documents (../shared/notes/entra-graph.md
 * §7.2), on two local origins. It shares nothing with the source it checks: node: modules only.
 *
 *     const entra = await startEntraGraph();          // a tenant `contoso.onmicrosoft.com`
 *     const app = entra.createApp({ permissions: ['User.Read.All', 'GroupMember.Read.All'] });
 *     const { secret } = entra.addSecret(app.clientId);
 *     // POST entra.tokenUrl  grant_type=client_credentials&client_id=…&scope=${entra.scope}&client_secret=…
 *     // GET  `${entra.graphUrl}/v1.0/users/delta?$select=…`  Authorization: Bearer …
 *
 * Handle (`EntraGraphServer`; the tenant methods also exist on `addTenant()`'s handle):
 *
 * Origins — `loginUrl` (authority host), `graphUrl` (Graph origin), `scope` (`${graphUrl}/.default`,
 * the only scope granted), `tenantId`, `domain`, `tokenUrl` (`${loginUrl}/${tenantId}/oauth2/v2.0/token`;
 * the domain works in place of the id). `addTenant({ domain? })` adds a tenant with its own
 * directory, apps and delta log.
 *
 * Sign-in — `createApp({ displayName?, permissions? }) → { clientId, servicePrincipalId, displayName }`
 * (its enterprise app is a service principal in the directory); `grant(clientId, ...permissions)`,
 * `revoke(...)` (roles are fixed in a token at issuance: a grant needs a new token);
 * `addSecret(clientId, { lifetimeSeconds? }) → { secretId, secret }`, `expireSecret(clientId, secretId?)`;
 * `addCertificate(clientId, { certificatePem?, lifetimeSeconds? }) → Promise<{ certificateId,
 * certificatePem, privateKeyPem, thumbprint, x5t, x5tS256 }>` (a fresh self-signed pair from
 * `openssl` unless a PEM is given; `generateCertificate()` makes one to keep unregistered),
 * `expireCertificate(clientId, certificateId?)`; `setTokenLifetime(seconds)` (`expires_in`,
 * default 3599), `revokeTokens(clientId?)` (issued tokens answer 401), `setMaxAssertionLifetime(s)`
 * (longest exp − nbf of a client assertion, default 3600). Refusals: wrong secret 401
 * invalid_client AADSTS7000215, expired secret 7000222, unknown client 400 unauthorized_client
 * 700016, unknown tenant 90002, scope not `/.default` 400 invalid_scope 1002012, other resource
 * 500011, missing parameter 900144, no credential 7000218, non-form body = missing grant_type;
 * assertions: unknown thumbprint / bad signature / expired certificate 700027, iss/sub ≠ client
 * 700021, aud ≠ token URL or no jti/nbf/exp 50027, outside its time range or too long 700024
 * (RS256 with `x5t`, PS256 with `x5t#S256`, salt length 32).
 *
 * Directory (every change feeds the delta log) — `createUser(props, { id? }) → { id, ...props }`
 * (props: any Graph user property — userPrincipalName and displayName needed; accountEnabled
 * defaults to true, userType to Member); `updateUser(id, changes)` (undefined unsets, null sets
 * null); `deleteUser(id)` (soft: `@removed changed`, memberships kept in group delta),
 * `restoreUser(id)`, `purgeUser(id)` (hard: `@removed deleted`, a member removal in each group);
 * `createGroup(props)` (displayName needed; security group unless `groupTypes: ['Unified']`),
 * `updateGroup`, `deleteGroup(id)` (soft for Microsoft 365 groups, permanent for security groups,
 * as Entra does), `restoreGroup`, `purgeGroup`; `createObject('device' | 'orgContact' |
 * 'servicePrincipal', props?)`, `purgeObject(id)`; `addMember(groupId, memberId)`,
 * `removeMember(groupId, memberId)`; `assign(servicePrincipalId, principalId, appRoleId?) →
 * assignmentId` (at once, not lagged), `unassign(assignmentId)`; reads for assertions:
 * `object(idOrUpn) → { id, deleted, ...props } | undefined`, `members(groupId) → ids`.
 * `setReplicationLag(ms)`: changes reach Graph (lists and delta) that much later on the emulation
 * clock, in order; `pendingChanges()`; a lagged change that fails is thrown by the next control call.
 * `seedScale({ users?, groups?, depth?, membersPerGroup?, bigGroupMembers? }) → ScaleFixture`:
 * 100,000 users and 20,000 groups nested 10 deep with a cycle, a group of 2,500 direct members,
 * `#EXT#` guests, users without mail, a device, contact and service principal as members — seeded
 * without log entries, ids deterministic.
 *
 * Delta — `setDeltaPaging({ objectsPerPage? (50), membersPerPage? (250), removedInInitialRound?
 * (true) })`; `setDeltaTokenMaxAge(ms)` (7 days: older delta links answer 400 syncStateNotFound);
 * `setDeltaChaos({ shuffle?, duplicates? (fraction), replay? (log entries), emptyPages? (fraction),
 * seed? })`; `failDeltaLinks({ status: 410 } | { status: 400, code: 'resyncRequired' |
 * 'syncStateNotFound' }, { count?, resource? })` — the next delta-link requests fail so (410 with
 * a `Location` that restarts the round).
 *
 * Lists — `setListScanLimit(n)`: entries a list page looks at beyond `$top` before answering,
 * possibly with no items and a next link (default 50,000: lower it to see such pages).
 *
 * Faults and throttling — `faults.next(count, reply, target?)`, `faults.every(n, reply, target?)`,
 * `faults.randomly(fraction, seed, reply, target?)`, `faults.clear()`; reply `{ status: 429 | 503 |
 * 504, retryAfter?: seconds | null }` (null: no Retry-After), target 'graph' (default) or 'token'.
 * The resource-unit bucket per app+tenant follows throttling-limits.md (3,500/5,000/8,000 RU per
 * 10 s by tenant size; documented costs); `setResourceUnitQuota(units | undefined)` overrides it
 * (Infinity: off), `drainResourceUnits(clientId, tenantId?)` empties it.
 *
 * Clock and records — `clock.now()`, `clock.advance(ms)` (tokens, secrets, certificates,
 * assertions, delta links, lag and buckets all read it); `setLinkOrigin(origin | undefined)`
 * (next and delta links on another origin, to test that they are not followed); `requests() →
 * { host: 'login' | 'graph', method, path, status, at, app?, tenant? }[]` (never a body or a
 * header); `close()`.
 *
 * Order of checks on Graph: bearer (401) → scripted faults → resource units (429) → method (GET
 * only, else 405) → route, query options and permissions (400 / 403 / 404 / 501). Graph features
 * the `entra` source does not use answer 501 NotImplemented rather than a guess: `$orderby`,
 * `$search`, `$expand`, casts, `transitiveMembers`, `$batch`, `/devices`, `/directory/deletedItems`
 * (`transitiveMemberOf` of a user or group is served: the groups it is in, nearest first);
 * also not modelled: change notifications, the lagging index of advanced queries (they see the
 * current state), the per-app 150,000 RU / 20 s limit, `User.ReadBasic.All`, `manager` in users
 * delta, replay detection of an assertion's `jti`.
 */
export * from './entra/entra-server.js';
export { generateCertificate, type CertificatePair } from './entra/entra-certificate.js';
export type { EntraApp, EntraCertificate, ObjectView } from './entra/entra-control.js';
export type { GraphPermission } from './entra/entra-apps.js';
export type { ScaleFixture, ScaleOptions } from './entra/entra-scale.js';

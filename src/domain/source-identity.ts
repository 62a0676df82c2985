import type { PolicyKind } from './identity-policy.js';
import type { ReadOptions } from './snapshot-sink.js';

/**
 * One identity read from its input's source now, by its key (provision on demand,
 * docs/scope-and-mapping.md): the item as the source's own mapping makes it, with its facts
 * attached (policy-context.ts) for the scope and mapping to read; a group with the users in it
 * (nested groups flattened), each read the same way.
 */
export interface SourceIdentity {
  /** The source's id: the bridge's key for the identity (and the platform's externalId). */
  readonly id: string;
  /** How the source names it: an LDAP DN, an Okta or upstream id. */
  readonly label: string;
  readonly item: Readonly<Record<string, unknown>>;
  /** Groups: the users in it, directly or through nested groups, as a full read would list them. */
  readonly members?: readonly SourceIdentity[];
}

/**
 * What a one-identity read found: the identity; one the source holds but its read leaves out before
 * any scope expression (outside the LDAP base or filter, a DEPROVISIONED Okta user), with why; or
 * nothing (`reason` says where the read looked).
 */
export type OneRead =
  | { outcome: 'found'; identity: SourceIdentity }
  | { outcome: 'excluded'; label: string; reason: string }
  | { outcome: 'absent'; reason: string };

/**
 * Reads one user or group by its key: the source's id (LDAP: also its DN). Throws as a full read
 * does (`source_unavailable`, `source_invalid`).
 */
export type ReadOne = (kind: PolicyKind, key: string, options?: ReadOptions) => Promise<OneRead>;

import type { ChangeOptions, Owner } from './desired-change.js';
import type { CompiledPolicy, PolicyObserver } from './identity-policy.js';
import type { ReadOptions, SnapshotSource } from './snapshot-sink.js';
import type { ReadOne } from './source-identity.js';

/**
 * An input: one way identities reach the bridge (SPEC §5), and the owner of the identities it
 * brings (SPEC §6, Ownership). What it can do is what it declares:
 *
 * - `push`: it accepts pushes — the IdP's SCIM requests, signed events, Okta's hooks — at a path
 *   of the bridge's HTTP surface, enabled while its secret is set;
 * - `full`: it can be read in full: a full sync reads it as a stream of items (a snapshot) and
 *   replaces what it owns;
 * - `delta`: it can be read for what changed since a watermark.
 *
 * The sources/ folder holds one module per input kind; the input registry (sources/registry.ts)
 * names them and builds a configuration's inputs.
 */
export interface Input {
  readonly owner: Owner;
  readonly kind: InputKind;
  /** The scope and mapping its reads and pushed events are mapped by (absent: the source's own). */
  readonly policy?: CompiledPolicy;
  readonly push?: PushCapability;
  readonly full?: FullRead;
  readonly delta?: DeltaRead;
  /** What the input says of itself now (no I/O). */
  health(): InputHealth;
  /** Releases what it holds between reads (an API client's connections). */
  close?(): Promise<void>;
}

/** Push inputs are named by their kind (`scim`, `events`, `okta`); every directory is a `directory`. */
export type InputKind = string;

export interface PushCapability {
  /** Where the bridge takes the pushes (`/scim/v2`, `/webhooks/events`, `/webhooks/okta`). */
  readonly path: string;
  /** Whether its secret is set (an unset secret answers 404 `not_enabled`). */
  enabled(): boolean;
}

/** A source a full sync reads in full, and the name its records keep (`ldap`, `file`, `okta`…). */
export interface FullRead extends SnapshotSource {
  readonly sourceName: string;
  /** The scope and mapping it reads with (docs/scope-and-mapping.md), when it has them. */
  readonly policy?: PolicyCapability;
  /** One identity read now, by its key (provision on demand), when the source can. */
  readonly readOne?: ReadOne;
  /**
   * A digest of what this read would give now — the source's (a file's bytes) and the scope and
   * mapping it reads with — when the source can tell cheaply: equal digests, equal reads.
   */
  fingerprint?(options?: ReadOptions): Promise<string | undefined>;
}

/** An input's scope and mapping, and its read under another one beside it (previews, changes). */
export interface PolicyCapability {
  /** The settings prefix that names its expressions in problems (`directory`, `okta`). */
  readonly setting: string;
  readonly active: CompiledPolicy;
  /** A read that maps by `after` and tells the observer how `before` mapped each identity. */
  compared(before: CompiledPolicy, after: CompiledPolicy, observer: PolicyObserver): FullRead;
}

/**
 * Where a delta read stands in its source: `kind` says what `value` is (an accesslog time, an AD
 * USN); `origin` names what answered (a server, its database or invocation id): a watermark from
 * another origin is not trusted.
 */
export interface Watermark {
  readonly kind: string;
  readonly value: string;
  readonly origin: string;
}

/**
 * One change a change read found, as its source states it — never mapped: the input's scope,
 * mapping and validation are applied once, in sync/ (source-changes.ts), for every pulled input
 * alike. An upsert carries the item a full read of the source would give (its facts attached for
 * the expressions, domain/policy-context.ts); a group item without `members` keeps its members.
 * `members` adds and removes a group's direct members (event feeds that say only that). `event`
 * names the source's event, when there is one: the store applies it once, whichever path (a hook,
 * the change read) brings it first.
 */
export type SourceChange = (
  | { op: 'upsert'; kind: 'users' | 'groups'; item: unknown; label?: string }
  | { op: 'remove'; kind: 'users' | 'groups'; id: string }
  | { op: 'members'; groupId: string; add: readonly string[]; remove: readonly string[] }
) & { event?: { id: string } & Pick<ChangeOptions, 'eventTime'>; detail?: string };

/** What a change read found since the watermark it was given. */
export interface DeltaChanges {
  /** The changes, in the order they happened, as the source states them. */
  readonly changes: readonly SourceChange[];
  /** The watermark after them: stored once they are applied, never before. */
  readonly watermark: Watermark;
  /** Entries the read took from the source (its cost). */
  readonly entriesRead: number;
  /** When the newest change happened at the source (ms), when the source says. */
  readonly newestChangeAt?: number;
  /** Entries left out before any scope (no id, not an identity), with why. */
  readonly skipped?: readonly { label: string; reason: string }[];
  /**
   * Every user whose groups changed is upserted here with its groups as facts: a scope or mapping
   * that reads membership can follow the read (otherwise a group change asks for a full read).
   */
  readonly membershipStated?: boolean;
}

/**
 * A source read for its changes since a watermark. A watermark it cannot trust — it went backwards
 * (a restore from backup), another server or database answers, the source no longer holds the
 * changes since it — is refused with BridgeError `watermark_untrusted`: the input is then read in full.
 */
export interface DeltaRead {
  readonly watermarkKind: string;
  /** How often the input is read for its changes (its own cadence: a directory's deltaSeconds). */
  readonly everySeconds: number;
  /** The source's position now: where deltas start after a full read that begins now. */
  position(options?: ReadOptions): Promise<Watermark>;
  changesSince(watermark: Watermark, options?: ReadOptions): Promise<DeltaChanges>;
}

/** A source's change read before its input gives it a cadence (a directory source kind's). */
export type DeltaSource = Omit<DeltaRead, 'everySeconds'>;

export interface InputHealth {
  /** `disabled`: configured off (no secret, no source); `failing`: its last reads failed. */
  readonly state: 'ok' | 'failing' | 'disabled';
  readonly detail?: string;
}

/** The inputs of a configuration, by owner name. */
export class Inputs {
  private readonly byOwner: ReadonlyMap<string, Input>;

  constructor(inputs: readonly Input[]) {
    this.byOwner = new Map(inputs.map((input) => [input.owner, input]));
  }

  all(): Input[] {
    return [...this.byOwner.values()];
  }

  get(owner: string): Input | undefined {
    return this.byOwner.get(owner);
  }

  /** The inputs a full sync can read, by owner. */
  readable(): ReadonlyMap<string, FullRead> {
    const out = new Map<string, FullRead>();
    for (const input of this.byOwner.values()) if (input.full) out.set(input.owner, input.full);
    return out;
  }

  /** The inputs also read for their changes since a watermark, by owner. */
  deltas(): ReadonlyMap<string, DeltaRead> {
    const out = new Map<string, DeltaRead>();
    for (const input of this.byOwner.values()) if (input.delta) out.set(input.owner, input.delta);
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((input) => input.close?.()));
  }

  /** The configured directory, when it can be read: what a sync that names no input reads. */
  directory(): Input | undefined {
    // The first directory (the one `directory:` configures): a further one is never the default.
    const first = this.all().find((input) => input.kind === 'directory');
    return first?.full ? first : undefined;
  }
}

import type { DesiredChange } from '../domain/desired-change.js';
import { BridgeError } from '../domain/errors.js';
import { applyPolicy, type CompiledPolicy, type PolicyKind } from '../domain/identity-policy.js';
import type { SourceChange } from '../domain/input.js';
import { evaluationInput, factsOf, itemFacts } from '../domain/policy-context.js';
import { groupSchema, userSchema } from '../domain/snapshot.schema.js';

/** An identity a change left out: its label and why (it cannot be mapped, or is not valid). */
export interface SkippedChange {
  kind: PolicyKind;
  label: string;
  reason: string;
}

/** A change read's changes as the desired state takes them, and the event ids they carry. */
export interface MappedChanges {
  changes: DesiredChange[];
  skipped: SkippedChange[];
  /** Event ids in the order of `changes`' eventIndex (the store applies each event once). */
  events: string[];
}

export interface MapOptions {
  /** The history line of the changes (`directory change (delta read)`, `user.lifecycle.activate …`). */
  detail: string;
  signal: 'directory' | 'okta';
  /**
   * Whether a change to a group's members may leave a user's scope unknown: a change read that
   * cannot give the users' groups then asks for a full read; a hook applies what it was told.
   */
  membershipKnown?: boolean;
}

/**
 * Applies an input's scope, mapping and validation (docs/scope-and-mapping.md) to what its change
 * read — or a pushed event of it — found, as a full read applies them (policy-sink.ts): a user or
 * group in scope and mappable is upserted (validated as a snapshot item is); one out of scope is
 * deleted (a user deprovisioned); one that cannot be mapped or is not valid is skipped with its
 * reason; members left out by this batch are left out of its groups. A scope or mapping that reads
 * group membership cannot follow a group's change without every member's groups: unless the
 * changes say them, the input is read in full (`watermark_untrusted`).
 */
export function mapSourceChanges(
  policy: CompiledPolicy,
  source: readonly SourceChange[],
  options: MapOptions,
): MappedChanges {
  refuseMembershipChanges(policy, source, options.membershipKnown === true);
  const out: MappedChanges = { changes: [], skipped: [], events: [] };
  const leftOut = new Set<string>();
  for (const change of source) {
    const mapped = mapOne(policy, change, leftOut, out.skipped);
    if (mapped === undefined) continue;
    const event = change.event;
    const eventIndex = event ? out.events.push(event.id) - 1 : undefined;
    const signal = { source: options.signal, detail: change.detail ?? options.detail };
    out.changes.push({
      ...mapped,
      signal,
      ...(eventIndex === undefined ? {} : { eventIndex }),
      ...(event?.eventTime === undefined || mapped.op.endsWith('Members')
        ? {}
        : { eventTime: event.eventTime }),
    } as DesiredChange);
  }
  return out;
}

function mapOne(
  policy: CompiledPolicy,
  change: SourceChange,
  leftOut: Set<string>,
  skipped: SkippedChange[],
): DesiredChange | undefined {
  switch (change.op) {
    case 'remove':
      return change.kind === 'users'
        ? { op: 'deleteUser', id: change.id }
        : { op: 'deleteGroup', id: change.id };
    case 'members': {
      const add = change.add.filter((id) => !leftOut.has(id));
      if (add.length > 0) return { op: 'addMembers', groupId: change.groupId, userIds: add };
      return change.remove.length > 0
        ? { op: 'removeMembers', groupId: change.groupId, userIds: change.remove }
        : undefined;
    }
    case 'upsert':
      return change.kind === 'users'
        ? mapUser(policy, change.item, change.label, leftOut, skipped)
        : mapGroup(policy, change.item, change.label, leftOut, skipped);
  }
}

function mapUser(
  policy: CompiledPolicy,
  item: unknown,
  label: string | undefined,
  leftOut: Set<string>,
  skipped: SkippedChange[],
): DesiredChange | undefined {
  const mapped = policyOutcome(policy, 'users', item, label, skipped);
  if (mapped === undefined) return undefined;
  if ('outOfScope' in mapped) {
    leftOut.add(mapped.id);
    return { op: 'deleteUser', id: mapped.id };
  }
  const parsed = userSchema.safeParse(mapped.item);
  if (parsed.success) return { op: 'upsertUser', user: parsed.data, mode: 'force' };
  leftOut.add(mapped.id);
  skipped.push({ kind: 'users', label: mapped.label, reason: issues(parsed.error.issues) });
  return undefined;
}

function mapGroup(
  policy: CompiledPolicy,
  item: unknown,
  label: string | undefined,
  leftOut: ReadonlySet<string>,
  skipped: SkippedChange[],
): DesiredChange | undefined {
  const mapped = policyOutcome(policy, 'groups', item, label, skipped);
  if (mapped === undefined) return undefined;
  if ('outOfScope' in mapped) return { op: 'deleteGroup', id: mapped.id };
  const { members, ...rest } = mapped.item;
  const kept = Array.isArray(members) ? members.filter((m) => !leftOut.has(String(m))) : undefined;
  // A group item without members keeps the group's (an event that renames it says nothing of them).
  const parsed = groupSchema.safeParse({ ...rest, members: kept ?? [] });
  if (!parsed.success) {
    skipped.push({ kind: 'groups', label: mapped.label, reason: issues(parsed.error.issues) });
    return undefined;
  }
  const { members: valid, ...group } = parsed.data;
  return {
    op: 'upsertGroup',
    group: kept === undefined ? group : { ...group, members: valid },
    mode: 'force',
  };
}

type Outcome =
  | { id: string; label: string; item: Record<string, unknown> }
  | { id: string; label: string; outOfScope: true };

/** An item under the policy; undefined (skipped, with why) when it has no id or cannot be mapped. */
function policyOutcome(
  policy: CompiledPolicy,
  kind: PolicyKind,
  item: unknown,
  label: string | undefined,
  skipped: SkippedChange[],
): Outcome | undefined {
  const record = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
  const id = typeof record.id === 'string' && record.id !== '' ? record.id : undefined;
  if (id === undefined) {
    skipped.push({ kind, label: label ?? '(no id)', reason: 'no id' });
    return undefined;
  }
  const shown = label ?? id;
  if (policy.isDefault) return { id, label: shown, item: record };
  const facts = factsOf(item) ?? itemFacts(item);
  const result = applyPolicy(policy[kind], kind, record, evaluationInput(id, facts));
  if (result.outcome === 'out-of-scope') return { id, label: shown, outOfScope: true };
  if (result.outcome === 'mapped') return { id, label: shown, item: result.item };
  skipped.push({ kind, label: shown, reason: result.reason });
  return undefined;
}

function refuseMembershipChanges(
  policy: CompiledPolicy,
  source: readonly SourceChange[],
  known: boolean,
): void {
  if (known || !policy.users.readsMembership) return;
  const groups = source.some((c) => (c.op === 'members' ? true : c.kind === 'groups'));
  if (!groups) return;
  throw new BridgeError(
    'watermark_untrusted',
    "groups changed and the input's scope or mapping reads group membership: the input is read in full",
  );
}

function issues(list: readonly { path: PropertyKey[]; message: string }[]): string {
  return list.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');
}

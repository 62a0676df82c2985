import type { CompiledPolicy, Mapped, PolicyKind, PolicyObserver } from '../domain/identity-policy.js';

/**
 * What changes between two scopes and mappings of one input, identity by identity, as a read maps
 * each with both (docs/scope-and-mapping.md, "Preview"): who enters the scope and who leaves it,
 * whose attributes change (before → after, per attribute), whom the new one cannot map (and why),
 * and which identities it maps to a name another one has (collisions). Counts are exact; each list
 * keeps its first SAMPLE entries, which GET /admin/sync/{jobId}/preview pages through.
 */

export const PREVIEW_CATEGORIES = ['entering', 'leaving', 'changed', 'unmappable', 'collisions'] as const;
export type PreviewCategory = (typeof PREVIEW_CATEGORIES)[number];

export interface AttributeChange {
  attribute: string;
  before: string | boolean | null;
  after: string | boolean | null;
}

export interface PreviewEntry {
  kind: 'user' | 'group';
  id: string;
  name: string | null;
  label?: string;
  changes?: AttributeChange[];
  reason?: string;
  /** A collision: the id of the identity that has the name first. */
  with?: string;
}

export interface PolicyPreview {
  before: { fingerprint: string; settings: unknown };
  after: { fingerprint: string; settings: unknown };
  counts: Record<PreviewCategory | 'unchanged', { users: number; groups: number }>;
  /** userName / displayName changes: renames count with removals against DEPROVISION_LIMIT. */
  renames: number;
  lists: Record<PreviewCategory, PreviewEntry[]>;
}

const SAMPLE = 500;
const ATTRIBUTES: Record<PolicyKind, readonly string[]> = {
  users: ['userName', 'givenName', 'familyName', 'email', 'active', 'externalId'],
  groups: ['displayName', 'externalId'],
};

export class PreviewRecorder implements PolicyObserver {
  private readonly names = { users: new Map<string, string>(), groups: new Map<string, string>() };
  readonly preview: PolicyPreview;

  /** `dropsCollisions`: a preview leaves the second of two identities out, as it would fail the read. */
  constructor(
    before: CompiledPolicy,
    after: CompiledPolicy,
    private readonly dropsCollisions: boolean,
  ) {
    const zero = () => ({ users: 0, groups: 0 });
    this.preview = {
      before: { fingerprint: before.fingerprint, settings: before.settings },
      after: { fingerprint: after.fingerprint, settings: after.settings },
      counts: {
        entering: zero(),
        leaving: zero(),
        changed: zero(),
        unmappable: zero(),
        collisions: zero(),
        unchanged: zero(),
      },
      renames: 0,
      lists: { entering: [], leaving: [], changed: [], unmappable: [], collisions: [] },
    };
  }

  compare(kind: PolicyKind, id: string, label: string | undefined, before: Mapped, after: Mapped): boolean {
    const entry = (name: string | null, extra: Partial<PreviewEntry> = {}): PreviewEntry => ({
      kind: kind === 'users' ? 'user' : 'group',
      id,
      name,
      ...(label !== undefined && label !== id ? { label } : {}),
      ...extra,
    });
    const wasIn = before.outcome !== 'out-of-scope';
    if (after.outcome === 'out-of-scope') {
      if (wasIn) this.add('leaving', kind, entry(nameOf(kind, before)));
      else this.preview.counts.unchanged[kind]++;
      return true;
    }
    if (after.outcome === 'unmappable') {
      this.add('unmappable', kind, entry(nameOf(kind, before), { reason: after.reason }));
      return true;
    }
    const name = nameOf(kind, after) ?? '';
    const first = this.names[kind].get(name.toLowerCase());
    if (first !== undefined) {
      this.add('collisions', kind, entry(name, { with: first }));
      return !this.dropsCollisions;
    }
    this.names[kind].set(name.toLowerCase(), id);
    if (!wasIn) return this.add('entering', kind, entry(name));
    const changes = before.outcome === 'mapped' ? diff(kind, before.item, after.item) : [];
    if (changes.length === 0) this.preview.counts.unchanged[kind]++;
    else {
      if (changes.some((c) => c.attribute === 'userName' || c.attribute === 'displayName'))
        this.preview.renames++;
      this.add('changed', kind, entry(name, { changes }));
    }
    return true;
  }

  private add(category: PreviewCategory, kind: PolicyKind, entry: PreviewEntry): true {
    this.preview.counts[category][kind]++;
    const list = this.preview.lists[category];
    if (list.length < SAMPLE) list.push(entry);
    return true;
  }
}

function nameOf(kind: PolicyKind, mapped: Mapped): string | null {
  if (mapped.outcome !== 'mapped') return null;
  const name = mapped.item[kind === 'users' ? 'userName' : 'displayName'];
  return typeof name === 'string' ? name : null;
}

function diff(kind: PolicyKind, before: Record<string, unknown>, after: Record<string, unknown>) {
  const changes: AttributeChange[] = [];
  for (const attribute of ATTRIBUTES[kind]) {
    const a = valueOf(before, attribute);
    const b = valueOf(after, attribute);
    if (a !== b) changes.push({ attribute, before: a, after: b });
  }
  return changes;
}

function valueOf(item: Record<string, unknown>, attribute: string): string | boolean | null {
  if (attribute === 'givenName' || attribute === 'familyName') {
    const value = (item.name as Record<string, unknown> | undefined)?.[attribute];
    return typeof value === 'string' ? value : null;
  }
  if (attribute === 'email') {
    const emails = Array.isArray(item.emails)
      ? (item.emails as { value?: unknown; primary?: unknown }[])
      : [];
    const primary = emails.find((e) => e.primary === true) ?? emails[0];
    return typeof primary?.value === 'string' ? primary.value : null;
  }
  if (attribute === 'active') return item.active === false ? false : true;
  const value = item[attribute];
  return typeof value === 'string' ? value : null;
}

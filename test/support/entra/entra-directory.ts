import type { EntraClock } from './entra-clock.js';
import { DeltaLog, type Change, type DeltaResource } from './entra-delta-log.js';
import { newGuid } from './entra-ids.js';
import { isWritable, type DirectoryObject, type ObjectKind, type Props } from './entra-objects.js';
import { OrderedIds } from './ordered-ids.js';

/**
 * A tenant's directory: its objects, the direct membership edges of its groups, and the delta log
 * every change feeds. `insert`/`link` seed state that was always there (no log entry, as the
 * fixtures need at scale); the other mutations are changes, each logged as Graph's delta reports
 * them. Soft-deleted objects stay (in deletedItems) with their edges — group delta keeps a
 * soft-deleted user's memberships until the hard delete (delta-query notes §3) — and lists skip
 * them.
 */
export class Directory {
  readonly objects = new Map<string, DirectoryObject>();
  readonly users = new OrderedIds();
  readonly groups = new OrderedIds();
  readonly members = new Map<string, OrderedIds>();
  readonly log = new DeltaLog();
  readonly servicePrincipals = new Set<string>();
  private readonly upns = new Map<string, string>();
  private seq = 0;

  constructor(readonly clock: EntraClock) {}

  nextSeq(): number {
    return ++this.seq;
  }

  /** A live (not soft-deleted) object, by id or — for users — userPrincipalName. */
  find(idOrUpn: string, kind?: ObjectKind): DirectoryObject | undefined {
    const object = this.objects.get(idOrUpn) ?? this.objects.get(this.upns.get(idOrUpn.toLowerCase()) ?? '');
    if (!object || object.deletedAt !== undefined) return undefined;
    return kind === undefined || object.kind === kind ? object : undefined;
  }

  /** Any object still held, soft-deleted ones included. */
  held(id: string, kind?: ObjectKind): DirectoryObject {
    const object = this.objects.get(id);
    if (!object || (kind !== undefined && object.kind !== kind)) {
      throw new Error(`the emulated directory has no ${kind ?? 'object'} ${id}`);
    }
    return object;
  }

  live(id: string, kind?: ObjectKind): DirectoryObject {
    const object = this.held(id, kind);
    if (object.deletedAt !== undefined) throw new Error(`${object.kind} ${id} is deleted (restore it first)`);
    return object;
  }

  /**
   * Seeds an object as if it had always been there. `trusted` props (the scale fixture's) skip
   * the property checks and are taken as they are.
   */
  insert(kind: ObjectKind, props: Props, id = newGuid(), trusted = false): DirectoryObject {
    if (this.objects.has(id)) throw new Error(`the emulated directory already has an object ${id}`);
    if (!trusted) checkProps(kind, props);
    if (kind === 'user') this.claimUpn(id, props.userPrincipalName);
    const object: DirectoryObject = { id, kind, props: trusted ? props : defined(props) };
    this.objects.set(id, object);
    if (kind === 'servicePrincipal') this.servicePrincipals.add(id);
    if (kind === 'user') this.users.add(id, this.nextSeq());
    if (kind === 'group') {
      this.groups.add(id, this.nextSeq());
      this.members.set(id, new OrderedIds());
    }
    return object;
  }

  /** Seeds a membership edge (no log entry). */
  link(groupId: string, memberId: string): void {
    this.live(groupId, 'group');
    this.live(memberId);
    if (groupId === memberId) throw new Error(`group ${groupId} cannot be a member of itself`);
    const members = this.members.get(groupId) as OrderedIds;
    if (members.has(memberId)) throw new Error(`${memberId} is already a member of group ${groupId}`);
    members.add(memberId, this.nextSeq());
  }

  /** The groups `memberId` is a direct member of (a walk over the groups: purges are rare). */
  groupsOf(memberId: string): string[] {
    return this.groups.ids().filter((groupId) => this.members.get(groupId)?.has(memberId));
  }

  create(kind: ObjectKind, props: Props, id?: string): DirectoryObject {
    const object = this.insert(kind, props, id);
    this.record(object, { change: 'created' });
    return object;
  }

  update(id: string, changes: Props): string[] {
    const object = this.live(id);
    checkProps(object.kind, changes);
    const changed = Object.keys(changes).filter(
      (name) => JSON.stringify(object.props[name]) !== JSON.stringify(changes[name]),
    );
    if (changed.length === 0) return [];
    if (changed.includes('userPrincipalName')) {
      const before = String(object.props.userPrincipalName).toLowerCase();
      this.claimUpn(id, changes.userPrincipalName);
      if (before !== String(changes.userPrincipalName).toLowerCase()) this.upns.delete(before);
    }
    for (const name of changed) {
      if (changes[name] === undefined) delete object.props[name];
      else object.props[name] = changes[name];
    }
    this.record(object, { change: 'updated', props: changed });
    return changed;
  }

  addMember(groupId: string, memberId: string): void {
    this.link(groupId, memberId);
    const member = this.held(memberId);
    this.log.append('groups', groupId, memberChange(member, false), this.clock.now());
  }

  removeMember(groupId: string, memberId: string): void {
    this.live(groupId, 'group');
    const member = this.held(memberId);
    if (!this.unlink(groupId, memberId)) throw new Error(`${memberId} is not a member of group ${groupId}`);
    this.log.append('groups', groupId, memberChange(member, true), this.clock.now());
  }

  softDelete(id: string): void {
    const object = this.live(id);
    object.deletedAt = this.clock.now();
    object.props.deletedDateTime = new Date(object.deletedAt).toISOString();
    this.record(object, { change: 'softDeleted' });
  }

  restore(id: string): void {
    const object = this.held(id);
    if (object.deletedAt === undefined) throw new Error(`${object.kind} ${id} is not deleted`);
    delete object.deletedAt;
    delete object.props.deletedDateTime;
    this.record(object, { change: 'restored' });
  }

  /**
   * Deletes for good: the object leaves every group it was in (each a member removal in group
   * delta), a group's own edges go with it, and it is reported `@removed: deleted`.
   */
  purge(id: string): void {
    const object = this.held(id);
    for (const groupId of this.groupsOf(id)) {
      this.unlink(groupId, id);
      this.log.append('groups', groupId, memberChange(object, true), this.clock.now());
    }
    if (object.kind === 'group') {
      this.members.delete(id);
      this.groups.delete(id);
    }
    if (object.kind === 'user') {
      this.users.delete(id);
      this.upns.delete(String(object.props.userPrincipalName).toLowerCase());
    }
    this.objects.delete(id);
    this.servicePrincipals.delete(id);
    this.record(object, { change: 'hardDeleted' });
  }

  private unlink(groupId: string, memberId: string): boolean {
    return this.members.get(groupId)?.delete(memberId) ?? false;
  }

  private record(object: DirectoryObject, change: Change): void {
    const resource = resourceOf(object.kind);
    if (resource) this.log.append(resource, object.id, change, this.clock.now());
  }

  private claimUpn(id: string, upn: unknown): void {
    if (typeof upn !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(upn)) {
      throw new Error(`a user needs a userPrincipalName like alias@domain (got ${String(upn)})`);
    }
    const owner = this.upns.get(upn.toLowerCase());
    if (owner !== undefined && owner !== id) {
      throw new Error(`another object with the userPrincipalName ${upn} already exists`);
    }
    this.upns.set(upn.toLowerCase(), id);
  }
}

function resourceOf(kind: ObjectKind): DeltaResource | undefined {
  if (kind === 'user') return 'users';
  return kind === 'group' ? 'groups' : undefined;
}

function memberChange(member: DirectoryObject, removed: boolean): Change {
  return { change: 'member', member: member.id, memberKind: member.kind, removed };
}

function defined(props: Props): Props {
  return Object.fromEntries(Object.entries(props).filter(([, value]) => value !== undefined));
}

function checkProps(kind: ObjectKind, props: Props): void {
  for (const name of Object.keys(props)) {
    if (!isWritable(kind, name)) throw new Error(`${name} is not a writable property of a ${kind}`);
  }
}

import { BridgeError } from '../../../domain/errors.js';
import type { DeltaChanges, DeltaSource, Watermark } from '../../../domain/input.js';
import type { ReadOptions } from '../../../domain/snapshot-sink.js';
import type { Logger } from '../../../ops/logger.js';
import { deltaChanges } from './ldap-delta-changes.js';
import { withLdapReader, type LdapDeltaSettings } from './ldap-delta-session.js';
import type { LdapReader } from './ldap-reader.js';
import type { LdapScope } from './ldap-scope.js';
import { daysBetween, readDcState, tombstoneDays, type DcState } from './usn-dc-state.js';
import { readUsnChanges } from './usn-entries.js';

const KIND = 'ad-usn';

/** What the watermark's value holds: the DC's highestCommittedUSN and its clock, then. */
interface UsnMark {
  usn: string;
  at: string;
}

/**
 * Delta reads of Active Directory by uSNChanged polling (MS-ADTS §3.1.1.1.9; Microsoft's "polling
 * for changes using uSNChanged"): the users and groups whose uSNChanged is above the watermark's
 * USN, and the tombstones under `CN=Deleted Objects` (usn-entries.ts), made desired-state changes
 * by ldap-delta-changes.ts. The watermark is the DC's highestCommittedUSN, read before anything
 * else (a full read streams after it), with the DC's dnsHostName and invocationId as its origin.
 * USNs are the DC's own: another DC answering, another invocationId (a DC restored from a backup
 * takes a new one), a highestCommittedUSN lower than the watermark's (the database went back) or
 * a watermark older than the tombstone lifetime (deletions since may be purged) cannot be trusted —
 * the input is then read in full. The bind account must read the tombstones: see docs/ldap.md.
 */
export class UsnDelta implements DeltaSource {
  readonly watermarkKind = KIND;

  constructor(
    private readonly settings: LdapDeltaSettings,
    private readonly scope: LdapScope,
    private readonly logger?: Logger,
  ) {}

  position(options: ReadOptions = {}): Promise<Watermark> {
    return withLdapReader(this.settings, options.signal, async (reader) =>
      watermarkOf(await this.state(reader)),
    );
  }

  changesSince(watermark: Watermark, options: ReadOptions = {}): Promise<DeltaChanges> {
    return withLdapReader(this.settings, options.signal, async (reader) => {
      const state = await this.state(reader);
      const mark = trusted(watermark, state, await tombstoneDays(reader, state));
      const read = await readUsnChanges(reader, this.scope, state.namingContexts, BigInt(mark.usn));
      const found = await deltaChanges(reader, this.scope, read.entries);

      if (read.unkeyed.length > 0) {
        this.logger?.warn(
          { count: read.unkeyed.length, examples: read.unkeyed.slice(0, 5) },
          'deleted or moved AD entries without their id attribute: left to the next full sync',
        );
      }
      return {
        changes: found.changes,
        skipped: found.skipped,
        watermark: watermarkOf(state),
        entriesRead: reader.entriesRead,
        ...(read.newestAt === undefined ? {} : { newestChangeAt: read.newestAt }),
      };
    });
  }

  private state(reader: LdapReader): Promise<DcState> {
    return readDcState(reader, [this.settings.userBase, this.settings.groupBase]);
  }
}

export function watermarkOf(state: DcState): Watermark {
  const mark: UsnMark = { usn: state.usn.toString(), at: state.time };
  return { kind: KIND, value: JSON.stringify(mark), origin: `${state.host}/${state.invocationId}` };
}

/** The stored watermark's USN, unless it cannot be trusted (then the input is read in full). */
export function trusted(watermark: Watermark, state: DcState, tombstoneLifetime: number): UsnMark {
  const untrusted = (why: string) =>
    new BridgeError('watermark_untrusted', `The Active Directory delta watermark cannot be trusted: ${why}`);
  if (watermark.kind !== KIND) throw untrusted(`it is a ${watermark.kind} watermark`);
  const mark = parseMark(watermark.value);
  const slash = watermark.origin.lastIndexOf('/');
  const [host, invocationId] = [watermark.origin.slice(0, slash), watermark.origin.slice(slash + 1)];
  if (mark === undefined || slash < 0) {
    const given = `${JSON.stringify(watermark.value)}, ${JSON.stringify(watermark.origin)}`;
    throw untrusted(`its value or origin is not one (${given})`);
  }
  if (host !== state.host) {
    throw untrusted(
      `another domain controller answers (${state.host}, the watermark is ${host}'s): USNs are per DC`,
    );
  }
  if (invocationId !== state.invocationId) {
    throw untrusted(
      `the domain controller's invocationId changed from ${invocationId} to ${state.invocationId} (restored from a backup?)`,
    );
  }
  if (state.usn < BigInt(mark.usn)) {
    throw untrusted(
      `its highestCommittedUSN went back from ${mark.usn} to ${state.usn} (restored from a backup?)`,
    );
  }
  const age = daysBetween(mark.at, state.time);
  if (age !== undefined && age > tombstoneLifetime) {
    throw untrusted(
      `it is ${Math.floor(age)} days old, beyond the tombstone lifetime (${tombstoneLifetime} days): deletions since may be gone`,
    );
  }
  return mark;
}

function parseMark(value: string): UsnMark | undefined {
  try {
    const mark = JSON.parse(value) as Partial<UsnMark>;
    return typeof mark.usn === 'string' && /^\d+$/.test(mark.usn) && typeof mark.at === 'string'
      ? { usn: mark.usn, at: mark.at }
      : undefined;
  } catch {
    return undefined;
  }
}

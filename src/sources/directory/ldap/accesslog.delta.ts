import { BridgeError } from '../../../domain/errors.js';
import type { DeltaChanges, DeltaSource, Watermark } from '../../../domain/input.js';
import type { ReadOptions } from '../../../domain/snapshot-sink.js';
import type { Logger } from '../../../ops/logger.js';
import { accessLogCsn, generalizedTimeMs, readAccessLog, type LogPosition } from './accesslog-entries.js';
import { namingContextOf, type NamingContext } from './ldap-context.js';
import { deltaChanges } from './ldap-delta-changes.js';
import { withLdapReader, type LdapDeltaSettings } from './ldap-delta-session.js';
import type { LdapReader } from './ldap-reader.js';
import type { LdapScope } from './ldap-scope.js';

const KIND = 'openldap-accesslog';
/** How much newer than its log's last write a directory may be (one write's two CSNs differ a little). */
const LOG_SKEW_MS = 1000;

/** What the watermark's value holds: the log position and the directory's contextCSN then. */
interface AccesslogMark extends LogPosition {
  csn: string;
}

/**
 * Delta reads of an OpenLDAP directory from its `accesslog` overlay (slapo-accesslog): plain
 * searches of the log database for the successful writes since the watermark (adds, modifies,
 * deletes, renames), the changed entries read again by their entryUUID, deletions by the
 * `reqEntryUUID` the log keeps. The watermark is the last log entry applied (its `reqStart`) and
 * the directory database's identity and contextCSN (kept by the syncprov overlay): another
 * database (origin), a contextCSN that went backwards (a restore from backup) or a log that no
 * longer holds the last entry applied (purged) cannot be trusted — the input is then read in full.
 * The bind account needs read access to the log database (`cn=accesslog` by default).
 */
export class AccesslogDelta implements DeltaSource {
  readonly watermarkKind = KIND;

  constructor(
    private readonly settings: LdapDeltaSettings & { accesslogBase: string },
    private readonly scope: LdapScope,
    private readonly logger?: Logger,
  ) {}

  position(options: ReadOptions = {}): Promise<Watermark> {
    return withLdapReader(this.settings, options.signal, async (reader) => {
      const context = await this.context(reader);
      const log = await readAccessLog(reader, this.settings.accesslogBase, undefined);
      return this.watermark(context, log.position);
    });
  }

  changesSince(watermark: Watermark, options: ReadOptions = {}): Promise<DeltaChanges> {
    return withLdapReader(this.settings, options.signal, async (reader) => {
      const context = await this.context(reader);
      const logCsn = await accessLogCsn(reader, this.settings.accesslogBase);
      const mark = this.trusted(watermark, context, logCsn);
      const log = await readAccessLog(reader, this.settings.accesslogBase, mark, this.scope);
      const found = await deltaChanges(reader, this.scope, log.entries);

      return {
        changes: found.changes,
        skipped: found.skipped,
        watermark: this.watermark(context, log.position),
        entriesRead: reader.entriesRead,
        ...(log.newestAt === undefined ? {} : { newestChangeAt: log.newestAt }),
      };
    });
  }

  private async context(reader: LdapReader): Promise<NamingContext> {
    const context = await namingContextOf(reader, this.settings.userBase);
    if (context !== undefined) return context;
    throw new BridgeError(
      'source_unavailable',
      `The LDAP server names no database that holds ${this.settings.userBase} (rootDSE namingContexts)`,
      { retryable: false },
    );
  }

  /** The stored watermark's position, unless it cannot be trusted (then the input is read in full). */
  private trusted(watermark: Watermark, context: NamingContext, logCsn: string): AccesslogMark {
    const untrusted = (why: string) =>
      new BridgeError(
        'watermark_untrusted',
        `The LDAP directory's delta watermark cannot be trusted: ${why}`,
      );
    if (watermark.kind !== KIND) throw untrusted(`it is a ${watermark.kind} watermark`);
    if (watermark.origin !== context.uuid) throw untrusted('another directory database answers');
    const mark = JSON.parse(watermark.value) as AccesslogMark;
    if (context.csn !== '' && mark.csn !== '' && context.csn < mark.csn)
      throw untrusted(
        `its contextCSN went back from ${mark.csn} to ${context.csn} (restored from a backup?)`,
      );
    // Every write to the directory is logged as it is made, under the same CSN or one a few
    // milliseconds apart: a directory that changed since the watermark while its log was not written
    // since, or one clearly newer than its log, changed outside the log (restored from a backup or
    // loaded offline with slapadd, which stamps the load's own time, however soon after the last write).
    if (
      context.csn !== '' &&
      mark.csn !== '' &&
      logCsn !== '' &&
      context.csn > mark.csn &&
      logCsn <= mark.csn
    )
      throw untrusted(`the directory changed (${mark.csn} to ${context.csn}) while its access log did not`);
    if (context.csn !== '' && logCsn !== '' && csnMs(context.csn) - csnMs(logCsn) > LOG_SKEW_MS)
      throw untrusted(`the directory (${context.csn}) changed after its access log's last write (${logCsn})`);
    return mark;
  }

  private watermark(context: NamingContext, position: LogPosition): Watermark {
    const mark: AccesslogMark = { ...position, csn: context.csn };
    return { kind: KIND, value: JSON.stringify(mark), origin: context.uuid };
  }
}

/** A CSN's time part (RFC 4533's CSN as OpenLDAP writes it: time#count#sid#mod). */
function csnMs(csn: string): number {
  const time = csn.split('#')[0] ?? '';
  const fraction = /\.(\d+)Z$/.exec(time)?.[1] ?? '0';
  return (generalizedTimeMs(time) ?? 0) + Number(`0.${fraction}`) * 1000;
}

import { BridgeError } from '../../../domain/errors.js';
import { generalizedTimeMs } from './accesslog-entries.js';
import { isUnder } from './ldap-context.js';
import { dnKey } from './ldap-dn.js';
import type { LdapReader } from './ldap-reader.js';

/**
 * What an Active Directory domain controller says of itself, as a delta read by uSNChanged needs
 * it (MS-ADTS §3.1.1.3.2, rootDSE attributes): its highest committed USN, its DNS name, its current
 * time, and the invocationId of its directory database — on the NTDS Settings object its
 * `dsServiceName` names (MS-ADTS §6.1.1.2.2.1.2.1.1). USNs are per DC; a DC restored from a backup
 * takes a new invocationId, since the USNs it hands out next were handed out once already.
 */
export interface DcState {
  /** `highestCommittedUSN`: every change up to it is committed (a 64-bit counter). */
  usn: bigint;
  /** `dnsHostName`, lower-cased. */
  host: string;
  /** The directory database's invocationId (canonical GUID string). */
  invocationId: string;
  /** `currentTime`, as the DC's clock says (generalized time). */
  time: string;
  /** The naming contexts (domain partitions) that hold the user and group bases. */
  namingContexts: string[];
  configurationContext: string;
}

const ROOT_ATTRIBUTES = [
  'highestCommittedUSN',
  'dnsHostName',
  'dsServiceName',
  'currentTime',
  'namingContexts',
  'configurationNamingContext',
];

/** AD's tombstone lifetime when the forest sets none (MS-ADTS §6.1.1.4.2: 60 days). */
export const DEFAULT_TOMBSTONE_DAYS = 60;

/** Reads the DC's state; fails when it is not an AD DC or does not hold the bases. */
export async function readDcState(reader: LdapReader, bases: readonly string[]): Promise<DcState> {
  const root = await reader.entry('', ROOT_ATTRIBUTES);
  const value = (name: string) => root?.text(name)[0] ?? '';
  const [usnText, host, service] = [
    value('highestCommittedUSN'),
    value('dnsHostName'),
    value('dsServiceName'),
  ];
  if (!/^\d+$/.test(usnText) || host === '' || service === '') {
    throw notActiveDirectory(
      'its rootDSE has no highestCommittedUSN, dnsHostName or dsServiceName: not an Active Directory domain controller?',
    );
  }
  const ntds = await reader.entry(service, ['invocationId']);
  const invocationId = ntds?.text('invocationId')[0];
  if (invocationId === undefined)
    throw notActiveDirectory(`the bind account cannot read the invocationId of ${service}`);
  return {
    usn: BigInt(usnText),
    host: host.toLowerCase(),
    invocationId,
    time: value('currentTime'),
    namingContexts: contextsOf(root?.text('namingContexts') ?? [], bases),
    configurationContext: value('configurationNamingContext'),
  };
}

/** The forest's tombstone lifetime in days: how long a deletion can be seen under Deleted Objects. */
export async function tombstoneDays(reader: LdapReader, state: DcState): Promise<number> {
  const dn = `CN=Directory Service,CN=Windows NT,CN=Services,${state.configurationContext}`;
  const days = Number((await reader.entry(dn, ['tombstoneLifetime']))?.text('tombstoneLifetime')[0]);
  return Number.isInteger(days) && days > 0 ? days : DEFAULT_TOMBSTONE_DAYS;
}

/** Days between two generalized times; undefined when either does not parse. */
export function daysBetween(from: string, to: string): number | undefined {
  const [a, b] = [generalizedTimeMs(from), generalizedTimeMs(to)];
  return a === undefined || b === undefined ? undefined : (b - a) / 86_400_000;
}

/** For each base, the longest naming context it is under; each once. */
function contextsOf(contexts: readonly string[], bases: readonly string[]): string[] {
  const found = new Set<string>();
  for (const base of bases) {
    const key = dnKey(base);
    const context = contexts
      .filter((c) => isUnder(key, dnKey(c)))
      .sort((a, b) => b.length - a.length)
      .at(0);
    if (context === undefined) {
      throw new BridgeError(
        'source_unavailable',
        `The domain controller names no naming context that holds ${base} (rootDSE namingContexts)`,
        { retryable: false },
      );
    }
    found.add(context);
  }
  return [...found];
}

function notActiveDirectory(why: string): BridgeError {
  return new BridgeError('source_unavailable', `uSNChanged delta reads need Active Directory: ${why}`, {
    retryable: false,
  });
}

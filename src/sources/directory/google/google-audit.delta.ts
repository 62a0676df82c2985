import type { DeltaChanges, DeltaSource, Watermark } from '../../../domain/input.js';
import type { ReadOptions } from '../../../domain/snapshot-sink.js';
import { GoogleApi, REPORTS, type GoogleAccess } from './google-api.js';
import {
  keptSeen,
  positionOf,
  REACH_MS,
  readLog,
  untrusted,
  WATERMARK_KIND,
  watermarkOf,
} from './google-audit.js';
import { changesOf, type ChangeContext } from './google-changes.js';
import { planOf } from './google-events.js';
import type { GoogleNeeds } from './google-items.js';
import { answerTime } from './google-pages.js';

/**
 * The `google` source's change read (domain/input.ts, the change-read contract): Google's audit
 * logs since the watermark, less the overlap (google-audit.ts), followed by reading again each
 * user and group they name (google-changes.ts). A watermark it cannot trust — another customer's
 * or administrator's, older than the log reaches, a start Google refuses, no graph or address table
 * left by a full read, a bulk upload of users, groups changed under a scope that reads membership —
 * has the input read in full.
 */
export function googleAuditDelta(access: GoogleAccess, needs: GoogleNeeds): DeltaSource {
  return {
    watermarkKind: WATERMARK_KIND,
    position: (options) => position(access, options),
    changesSince: (watermark, options) => changesSince(access, needs, watermark, options),
  };
}

/** Now on Google's clock (the `Date` of one cheap read of the admin log): where deltas start. */
async function position(access: GoogleAccess, options: ReadOptions = {}): Promise<Watermark> {
  const api = new GoogleApi(access);
  try {
    const customer = access.settings.customer;
    const url = api.url(`${REPORTS}/admin`, {
      maxResults: '1',
      fields: 'items(id)',
      ...(customer === 'my_customer' ? {} : { customerId: customer }),
    });
    const at = answerTime(await api.get(url, options.signal)) ?? Date.now();
    return watermarkOf({ at, seen: [] }, access.origin);
  } finally {
    await api.close();
  }
}

async function changesSince(
  access: GoogleAccess,
  needs: GoogleNeeds,
  watermark: Watermark,
  options: ReadOptions = {},
): Promise<DeltaChanges> {
  const from = positionOf(watermark, access.origin);
  if (Date.now() - from.at > REACH_MS)
    throw untrusted('the watermark is older than the 180 days the log keeps');
  const { groupEdges: edges, lookup, signal } = options;
  if (!edges || !lookup || !(await edges.exists()) || !(await lookup.exists()))
    throw untrusted('no full read has left the group graph and address table a change read needs');
  const overlapMs = access.settings.logOverlapSeconds * 1000;
  const api = new GoogleApi(access);
  try {
    const log = await readLog(api, from.at - overlapMs, new Set(from.seen), signal);
    const plan = planOf(log.events);
    if (plan.fullRead !== undefined) throw untrusted(plan.fullRead);
    if (needs.membership && plan.groups.size > 0)
      throw untrusted("groups changed and the input's scope or mapping reads group membership");
    const context: ChangeContext = { api, needs, edges, lookup, reads: 0, ...(signal ? { signal } : {}) };
    const changes = await changesOf(context, plan);
    const newest = log.events.at(-1)?.time;
    return {
      changes,
      watermark: watermarkOf({ at: log.at, seen: keptSeen(log.keys, log.at, overlapMs) }, access.origin),
      entriesRead: log.events.length + context.reads,
      ...(newest === undefined ? {} : { newestChangeAt: newest }),
    };
  } finally {
    await api.close();
  }
}

import type { DeltaResource } from './entra-delta-log.js';
import {
  changedItems,
  changesPage,
  initialPage,
  type ChangesPosition,
  type DeltaPaging,
  type InitialPosition,
  type RoundSpec,
} from './entra-delta-pages.js';
import { mulberry32 } from './entra-faults.js';
import { context, fail, forbidden, formatQuery, type GraphCall } from './entra-graph-call.js';
import type { Props } from './entra-objects.js';
import { allows } from './entra-permissions.js';
import { QueryError, selection } from './entra-query.js';
import type { Reply } from './entra-replies.js';

/**
 * `GET /users/delta` and `/groups/delta` (user-delta.md, group-delta.md, delta-query-overview.md).
 * Tokens encode the round's `$select` and `$filter`, so options given again beside a token are not
 * honoured; `$top`, `$orderby`, `$expand` are refused and `$filter` takes only `id eq` (≤ 50).
 * `$deltatoken=latest` gives a delta link and no data. A page carries a next link or a delta link,
 * never both. A delta link older than `tokenMaxAgeMs` (7 days for directory objects) answers 400
 * syncStateNotFound; tests can force 410 Gone with a `Location` that restarts the round, or
 * resyncRequired.
 */
export interface DeltaChaos {
  /** Items of each page in a random order. */
  shuffle?: boolean;
  /** Fraction of items sent twice in their page. */
  duplicates?: number;
  /** Log entries the next delta link goes back over, so those changes come again. */
  replay?: number;
  /** Fraction of pages answered empty, with a next link to the same position. */
  emptyPages?: number;
  seed?: number;
}

export interface DeltaSettings extends DeltaPaging {
  tokenMaxAgeMs: number;
}

export interface ForcedDeltaFailure {
  status: 400 | 410;
  code: string;
  remaining: number;
  resource?: DeltaResource;
}

const REFUSED = ['$top', '$orderby', '$expand', '$search', '$count'];

export class DeltaEndpoint {
  readonly failures: ForcedDeltaFailure[] = [];
  private chaos: DeltaChaos = {};
  private random = mulberry32(1);
  private readonly rounds = new Map<string, ReturnType<typeof changedItems>>();

  constructor(readonly settings: DeltaSettings) {}

  setChaos(chaos: DeltaChaos): void {
    this.chaos = { ...chaos };
    this.random = mulberry32(chaos.seed ?? 1);
  }

  answer(call: GraphCall, resource: DeltaResource): Reply {
    if (!allows(call.token.roles, resource)) return forbidden(call);
    const skipToken = call.options.get('$skiptoken');
    if (skipToken !== undefined) return this.resume(call, resource, skipToken);
    const deltaToken = call.options.get('$deltatoken');
    if (deltaToken !== undefined && deltaToken !== '' && deltaToken !== 'latest') {
      return this.changesSince(call, resource, deltaToken);
    }
    const spec = this.specOf(call, resource);
    const head = call.tenant.directory.log.head();
    if (deltaToken === 'latest') return this.reply(call, spec, [], { deltaFrom: head });
    return this.initial(call, spec, { start: head, c: 0 });
  }

  private initial(call: GraphCall, spec: RoundSpec, at: InitialPosition): Reply {
    const directory = call.tenant.directory;
    if (this.roll(this.chaos.emptyPages)) return this.reply(call, spec, [], { next: { p: 'i', ...at } });
    const { value, next } = initialPage(directory, spec, at, this.settings);
    return this.reply(call, spec, value, next ? { next: { p: 'i', ...next } } : { deltaFrom: at.start });
  }

  private changesSince(call: GraphCall, resource: DeltaResource, token: string): Reply {
    const state = call.stateTokens.open(token);
    const valid = state?.k === 'link' && state.t === call.tenant.id && state.r === resource;
    if (!state || !valid || typeof state.s !== 'number') {
      return fail(call, 400, 'Request_BadRequest', 'The delta token is not valid.');
    }
    const refused = this.refusal(call, resource, state);
    if (refused) return refused;
    const at = { s: state.s, h: call.tenant.directory.log.head(), i: 0, m: 0 };
    return this.changes(call, specFrom(state), at);
  }

  /** A forced failure, or the token's age: 410 Gone with a restart `Location`, or a 400. */
  private refusal(
    call: GraphCall,
    resource: DeltaResource,
    state: Record<string, unknown>,
  ): Reply | undefined {
    const forced = this.forced(resource);
    if (forced?.status === 410) {
      const select = specFrom(state).select;
      const params: [string, string][] = select ? [['$select', select.join(',')]] : [];
      const query = formatQuery([...params, ['$deltatoken', '']]);
      const message = 'The delta token is no longer valid; restart with a full synchronization.';
      const reply = fail(call, 410, forced.code, message);
      return { ...reply, headers: { location: `${call.linkBase}/v1.0/${resource}/delta?${query}` } };
    }
    if (forced) {
      const message = 'The delta token is no longer valid, and the app must reset the sync state.';
      return fail(call, forced.status, forced.code, message);
    }
    if (call.clock.now() - Number(state.at) > this.settings.tokenMaxAgeMs) {
      const message =
        'The sync state generation is not found. The delta token is expired and data must be synchronized again.';
      return fail(call, 400, 'syncStateNotFound', message);
    }
    return undefined;
  }

  private changes(call: GraphCall, spec: RoundSpec, at: ChangesPosition): Reply {
    if (this.roll(this.chaos.emptyPages)) return this.reply(call, spec, [], { next: { p: 'c', ...at } });
    const items = this.itemsOf(call, spec, at);
    const minimal = /\breturn=minimal\b/i.test(String(call.headers.prefer ?? ''));
    const { value, next } = changesPage(items, at, this.settings, minimal);
    const reply = this.reply(call, spec, value, next ? { next: { p: 'c', ...next } } : { deltaFrom: at.h });
    if (minimal) reply.headers = { ...reply.headers, 'preference-applied': 'return=minimal' };
    return reply;
  }

  private resume(call: GraphCall, resource: DeltaResource, token: string): Reply {
    const state = call.stateTokens.open(token);
    if (state?.k !== 'next' || state.t !== call.tenant.id || state.r !== resource) {
      return fail(call, 400, 'Request_BadRequest', 'Invalid Skip Token.');
    }
    const spec = specFrom(state);
    const at = state.at as Record<string, unknown>;
    if (at.p === 'i') return this.initial(call, spec, at as unknown as InitialPosition);
    return this.changes(call, spec, at as unknown as ChangesPosition);
  }

  private reply(
    call: GraphCall,
    spec: RoundSpec,
    value: Props[],
    link: { next: Record<string, unknown> } | { deltaFrom: number },
  ): Reply {
    const base = `${call.linkBase}/v1.0/${spec.resource}/delta`;
    const sealed = { r: spec.resource, t: call.tenant.id, sel: spec.select, f: spec.ids };
    const body: Record<string, unknown> = { '@odata.context': context(call, spec.resource) };
    if ('next' in link) {
      body['@odata.nextLink'] =
        `${base}?$skiptoken=${call.stateTokens.seal({ ...sealed, k: 'next', at: link.next })}`;
    } else {
      const s = Math.max(0, link.deltaFrom - (this.chaos.replay ?? 0));
      body['@odata.deltaLink'] =
        `${base}?$deltatoken=${call.stateTokens.seal({ ...sealed, k: 'link', s, at: call.clock.now() })}`;
    }
    body.value = this.disorder(value);
    return { status: 200, body };
  }

  private specOf(call: GraphCall, resource: DeltaResource): RoundSpec {
    const given = REFUSED.find((name) => call.options.has(name));
    if (given)
      throw new QueryError(
        400,
        'Request_UnsupportedQuery',
        `The query option '${given}' is not supported with delta queries.`,
      );
    const kind = resource === 'users' ? 'user' : 'group';
    const select = selection(call.options, [kind], resource === 'groups' ? ['members'] : []);
    const filter = call.options.get('$filter');
    const ids = filter === undefined ? undefined : idFilter(filter);
    return { resource, ...(select ? { select } : {}), ...(ids ? { ids } : {}) };
  }

  private itemsOf(call: GraphCall, spec: RoundSpec, at: ChangesPosition) {
    const key = `${call.tenant.id}|${at.s}|${at.h}|${JSON.stringify(spec)}`;
    let items = this.rounds.get(key);
    if (!items) {
      const directory = call.tenant.directory;
      items = changedItems(directory, spec, directory.log.between(spec.resource, at.s, at.h));
      this.rounds.set(key, items);
      if (this.rounds.size > 32) this.rounds.delete(this.rounds.keys().next().value as string);
    }
    return items;
  }

  private forced(resource: DeltaResource): ForcedDeltaFailure | undefined {
    const index = this.failures.findIndex((f) => f.resource === undefined || f.resource === resource);
    const failure = this.failures[index];
    if (!failure) return undefined;
    if (--failure.remaining <= 0) this.failures.splice(index, 1);
    return failure;
  }

  private disorder(value: Props[]): Props[] {
    const out = [...value];
    for (const item of value) if (this.roll(this.chaos.duplicates)) out.push(structuredClone(item));
    if (this.chaos.shuffle) {
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(this.random() * (i + 1));
        [out[i], out[j]] = [out[j] as Props, out[i] as Props];
      }
    }
    return out;
  }

  private roll(fraction: number | undefined): boolean {
    return fraction !== undefined && fraction > 0 && this.random() < fraction;
  }
}

function specFrom(state: Record<string, unknown>): RoundSpec {
  return {
    resource: state.r as DeltaResource,
    ...(Array.isArray(state.sel) ? { select: state.sel as string[] } : {}),
    ...(Array.isArray(state.f) ? { ids: state.f as string[] } : {}),
  };
}

/** `id eq '…' or id eq '…'`, at most 50 (user-delta.md "limited support for $filter"). */
function idFilter(text: string): string[] {
  const ids = text.split(/\s+or\s+/i).map((clause) => /^\s*id\s+eq\s+'([^']+)'\s*$/i.exec(clause)?.[1]);
  if (ids.some((id) => id === undefined)) {
    throw new QueryError(
      400,
      'Request_UnsupportedQuery',
      "Delta queries support only $filter=id eq '{id}' clauses joined by 'or'.",
    );
  }
  if (ids.length > 50)
    throw new QueryError(400, 'Request_UnsupportedQuery', 'A delta $filter takes at most 50 ids.');
  return ids as string[];
}

import type { ApiMethod } from './google-access.js';
import { seeded } from './google-clock.js';
import { throttled, type Reply, type ThrottleKind } from './google-errors.js';

/**
 * Failures on demand, with Google's bodies: the throttling and outage answers (403
 * userRateLimitExceeded, 403 quotaExceeded, 429 rateLimitExceeded, 503 backendError) in place of
 * the answer, and two wrong answers that are 200s — a list without its list key
 * (`missingListKey`: Firezone refuses such a page "to prevent false positives that could delete
 * groups/users") and a page without `nextPageToken` although more follow (`truncatedWalk`: a walk
 * cut short, idp-scim-sync #70). A fault is scripted for the next matching requests (`times`,
 * default 1; Infinity for a 503 that never clears) or drawn at a seeded rate.
 */

export type FaultKind = ThrottleKind | 'missingListKey' | 'truncatedWalk';

/** Which requests a fault applies to: a method, a path (substring or pattern of path + query). */
export interface FaultMatch {
  method?: ApiMethod;
  path?: string | RegExp;
}

export interface ScriptedFault extends FaultMatch {
  kind: FaultKind;
  times?: number;
}

export interface FaultRate extends FaultMatch {
  kind: FaultKind;
  /** Share of matching requests that fail, 0–1. */
  rate: number;
  seed?: number;
}

const LIST_KEYS = ['users', 'groups', 'members', 'items'];

export class Faults {
  private scripted: (ScriptedFault & { left: number })[] = [];
  private rates: (FaultRate & { draw: () => number })[] = [];

  script(fault: ScriptedFault): void {
    this.scripted.push({ ...fault, left: fault.times ?? 1 });
  }

  rate(fault: FaultRate): void {
    this.rates.push({ ...fault, draw: seeded(fault.seed ?? 1) });
  }

  clear(): void {
    this.scripted = [];
    this.rates = [];
  }

  /** The throttle or outage answer for this request, if one is due (it is used up). */
  before(method: ApiMethod, target: string): Reply | undefined {
    const kind = this.due(method, target, (kind) => kind !== 'missingListKey' && kind !== 'truncatedWalk');
    return kind === undefined ? undefined : throttled(kind as ThrottleKind);
  }

  /** The route's 200 answer, spoiled by a due list fault (used up only where it changes something). */
  after(method: ApiMethod, target: string, reply: Reply): Reply {
    if (reply.status !== 200 || !method.endsWith('.list')) return reply;
    const body = reply.body as Record<string, unknown>;
    const kind = this.due(method, target, (kind) =>
      kind === 'missingListKey' ? true : kind === 'truncatedWalk' && body.nextPageToken !== undefined,
    );
    if (kind === undefined) return reply;
    const spoiled = { ...body };
    if (kind === 'missingListKey') for (const key of LIST_KEYS) delete spoiled[key];
    else delete spoiled.nextPageToken;
    return { ...reply, body: spoiled };
  }

  private due(
    method: ApiMethod,
    target: string,
    applies: (kind: FaultKind) => boolean,
  ): FaultKind | undefined {
    const scripted = this.scripted.find((f) => f.left > 0 && applies(f.kind) && matches(f, method, target));
    if (scripted) {
      scripted.left--;
      this.scripted = this.scripted.filter((f) => f.left > 0);
      return scripted.kind;
    }
    const drawn = this.rates.find((f) => applies(f.kind) && matches(f, method, target) && f.draw() < f.rate);
    return drawn?.kind;
  }
}

function matches(fault: FaultMatch, method: ApiMethod, target: string): boolean {
  if (fault.method !== undefined && fault.method !== method) return false;
  if (fault.path === undefined) return true;
  return typeof fault.path === 'string' ? target.includes(fault.path) : fault.path.test(target);
}

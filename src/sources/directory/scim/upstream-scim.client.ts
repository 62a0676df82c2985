import { request } from 'undici';
import { z } from 'zod';
import { BridgeError } from '../../../domain/errors.js';
import { lookupAttribute } from '../../../domain/scim-filter.js';

/**
 * Reads every resource of an upstream SCIM 2.0 server, page by page (RFC 7644 §3.4.2.4): each page
 * starts where the resources actually received end. The server may return fewer than the `count`
 * asked for (a page-size cap), so neither `count` nor `itemsPerPage` decides where the next page
 * starts. Reads stop at `totalResults` (required, RFC 7644 §3.4.2), at an empty page, or — as a
 * guard against servers that ignore `startIndex` — with an error when a page holds only resources
 * already seen.
 */

/** Retries of one page read, in one place: network errors, 429 and 5xx only. */
export const PAGE_RETRY = { attempts: 3, backoffMs: 250, maxRetryAfterMs: 30_000 } as const;

export interface UpstreamScimOptions {
  /** The SCIM base URL, e.g. https://idp.example.com/scim/v2. */
  url: string;
  token: string;
  pageSize: number;
  timeoutMs: number;
}

export type ScimResourceType = 'Users' | 'Groups';

const listResponse = z.object({
  totalResults: z.number().int().min(0),
  Resources: z.array(z.unknown()).optional(),
});

export class UpstreamScimClient {
  private readonly base: string;

  constructor(private readonly options: UpstreamScimOptions) {
    this.base = options.url.replace(/\/+$/, '');
  }

  /** Where the upstream is, for messages: no credentials, no query. */
  get label(): string {
    const url = new URL(this.base);
    return `${url.origin}${url.pathname}`;
  }

  async *pages(type: ScimResourceType, signal?: AbortSignal): AsyncGenerator<unknown[]> {
    // The ids of the first and of the previous page: a server that ignores startIndex answers one
    // of them again. Bounded, whatever the size of the directory.
    let firstPage: ReadonlySet<unknown> = new Set();
    let previous: ReadonlySet<unknown> = new Set();
    for (let startIndex = 1; ;) {
      const page = await this.page(type, startIndex, signal);
      const resources = page.Resources ?? [];
      if (resources.length === 0) {
        // An empty first page that claims resources is broken, and reading it as "no users" would
        // deprovision everyone; later pages may come up short when resources go during the read.
        if (startIndex === 1 && page.totalResults > 0)
          throw this.invalid(type, 'totalResults > 0 but no Resources');
        return;
      }
      const ids = resources.map((r) => lookupAttribute(r, 'id')).filter((id) => typeof id === 'string');
      if (ids.length > 0 && (ids.every((id) => firstPage.has(id)) || ids.every((id) => previous.has(id)))) {
        throw this.invalid(type, `the page at startIndex ${startIndex} repeats resources already read`);
      }
      previous = new Set(ids);
      if (startIndex === 1) firstPage = previous;
      yield resources;
      startIndex += resources.length;
      if (startIndex > page.totalResults) return;
    }
  }

  private async page(type: ScimResourceType, startIndex: number, signal?: AbortSignal) {
    const body = await this.get(`/${type}?startIndex=${startIndex}&count=${this.options.pageSize}`, signal);
    const parsed = listResponse.safeParse(normalizeListResponse(body));
    if (!parsed.success) throw this.invalid(type, 'the answer is not a SCIM ListResponse');
    return parsed.data;
  }

  private async get(path: string, signal?: AbortSignal): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.once(path, signal);
      if (outcome.ok) return outcome.body;
      const { error, waitMs } = outcome;
      if (!error.retryable || attempt >= PAGE_RETRY.attempts) throw error;
      await sleep(waitMs ?? PAGE_RETRY.backoffMs * 2 ** (attempt - 1), signal);
    }
  }

  private async once(
    path: string,
    signal?: AbortSignal,
  ): Promise<{ ok: true; body: unknown } | { ok: false; error: BridgeError; waitMs?: number }> {
    const { token, timeoutMs } = this.options;
    let response;
    try {
      response = await request(`${this.base}${path}`, {
        method: 'GET',
        headers: { authorization: `Bearer ${token}`, accept: 'application/scim+json, application/json' },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
      });
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      const reason = (error as { code?: string }).code ?? (error as Error).message;
      const message = `Cannot reach the upstream SCIM server ${this.label}: ${reason}`;
      return { ok: false, error: new BridgeError('source_unavailable', message, { cause: error }) };
    }
    const text = await response.body.text();
    if (response.statusCode === 200) return { ok: true, body: parseJson(text) };
    return { ok: false, ...this.failure(path, response.statusCode, text, response.headers['retry-after']) };
  }

  private failure(path: string, status: number, text: string, retryAfter: unknown) {
    const route = path.replace(/\?.*$/, '');
    const detail = lookupAttribute(parseJson(text), 'detail');
    const suffix = typeof detail === 'string' ? `: ${detail.slice(0, 200)}` : '';
    const retryable = status === 429 || status >= 500;
    const message =
      status === 401 || status === 403
        ? `The upstream SCIM server ${this.label} refused the token (${status})`
        : `The upstream SCIM server ${this.label} answered ${status} to GET ${route}${suffix}`;
    const error = new BridgeError('source_unavailable', message, { status, retryable });
    return { error, waitMs: retryAfterMs(retryAfter) };
  }

  private invalid(type: ScimResourceType, reason: string): BridgeError {
    return new BridgeError('source_invalid', `The upstream SCIM server ${this.label} /${type}: ${reason}`);
  }
}

/** `totalResults` and `Resources` under any capitalisation (RFC 7643 §2.1). */
function normalizeListResponse(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  return {
    totalResults: lookupAttribute(body, 'totalResults'),
    Resources: lookupAttribute(body, 'Resources'),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function retryAfterMs(value: unknown): number | undefined {
  const seconds = Number(Array.isArray(value) ? value[0] : value);
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return Math.min(seconds * 1000, PAGE_RETRY.maxRetryAfterMs);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

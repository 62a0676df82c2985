import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { secretLines } from '../config/secret-lines.js';
import {
  answerFailed,
  CliError,
  fileUnreadable,
  requestFailed,
  unexpectedAnswer,
  URL_HINT,
} from './cli-error.js';

export interface AdminClientOptions {
  url: string;
  token: string;
}

/**
 * The admin token from ADMIN_TOKEN_FILE or ADMIN_TOKEN, as the bridge itself reads it. During a
 * rotation the value holds the old and the new token, one per line; the bridge accepts each, and
 * the CLI sends the newest (the last line).
 */
export function adminTokenFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const file = env.ADMIN_TOKEN_FILE;
  const value = file ? readSecretFile('ADMIN_TOKEN_FILE', file) : (env.ADMIN_TOKEN ?? '');
  return secretLines(value).at(-1) ?? '';
}

export function defaultAdminUrl(env: NodeJS.ProcessEnv = process.env): string {
  return `http://127.0.0.1:${env.PORT ?? '8080'}`;
}

/** A client of the bridge at --url (default http://127.0.0.1:$PORT), with the admin token of the environment. */
export function adminClientFromEnv(
  url: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): AdminClient {
  const token = adminTokenFromEnv(env);
  if (!token) {
    throw new CliError(
      'setting_missing',
      env.ADMIN_TOKEN_FILE ? `ADMIN_TOKEN_FILE ${env.ADMIN_TOKEN_FILE} is empty` : 'ADMIN_TOKEN is not set',
      "set ADMIN_TOKEN (or ADMIN_TOKEN_FILE) to the bridge's admin token",
    );
  }
  return new AdminClient({ url: bridgeUrl(url ?? defaultAdminUrl(env)).toString(), token });
}

/** The URL of a bridge, from --url, BRIDGE_URL or PORT: http or https only. */
export function bridgeUrl(value: string): URL {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return url;
  throw new CliError('invalid_argument', `${value} is not an http(s) URL`, URL_HINT);
}

/** A secret read from the file a `*_FILE` setting names. */
export function readSecretFile(setting: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw fileUnreadable(path, error, setting);
  }
}

/**
 * A small client of a running bridge's admin API, for the CLI commands. Failures throw CliErrors that
 * name the bridge's URL: no answer, an error answer (its message and problems), or an answer that is
 * not the bridge's JSON.
 */
export class AdminClient {
  constructor(private readonly options: AdminClientOptions) {}

  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const base = this.options.url.replace(/\/+$/, '');
    let status: number;
    let text: string;
    try {
      const response = await request(new URL(path, this.options.url), {
        method,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw requestFailed(base, error);
    }
    if (status >= 400) throw answerFailed(base, status, text);
    try {
      return { status, body: (text ? JSON.parse(text) : undefined) as T };
    } catch {
      throw unexpectedAnswer(base, status, text);
    }
  }

  /**
   * POSTs a body streamed from `body` (never held whole). An error thrown while reading it (the
   * file) aborts the request, so the bridge never sees a complete body; it is thrown as is.
   * `problemsOf` may rewrite the problems of a refusal before they are shown.
   */
  async upload<T>(
    path: string,
    body: AsyncIterable<string | Buffer>,
    contentType: string,
    problemsOf: (text: string) => string = (text) => text,
  ): Promise<{ status: number; body: T }> {
    const base = this.options.url.replace(/\/+$/, '');
    let failed: unknown;
    const guarded = (async function* () {
      try {
        yield* body;
      } catch (error) {
        failed = error;
        throw error;
      }
    })();
    let status: number;
    let text: string;
    try {
      const response = await request(new URL(path, this.options.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.token}`, 'content-type': contentType },
        body: Readable.from(guarded),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw failed ?? requestFailed(base, error);
    }
    if (status >= 400) throw answerFailed(base, status, problemsOf(text));
    try {
      return { status, body: JSON.parse(text) as T };
    } catch {
      throw unexpectedAnswer(base, status, text);
    }
  }
}

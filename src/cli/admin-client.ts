import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { secretLines } from '../config/secret-lines.js';

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
  const value = env.ADMIN_TOKEN_FILE ? readFileSync(env.ADMIN_TOKEN_FILE, 'utf8') : (env.ADMIN_TOKEN ?? '');
  return secretLines(value).at(-1) ?? '';
}

export function defaultAdminUrl(env: NodeJS.ProcessEnv = process.env): string {
  return `http://127.0.0.1:${env.PORT ?? '8080'}`;
}

/** A small client of a running bridge's admin API, for the CLI commands. */
export class AdminClient {
  constructor(private readonly options: AdminClientOptions) {}

  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await request(new URL(path, this.options.url), {
      method,
      headers: {
        authorization: `Bearer ${this.options.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    const parsed = (text ? JSON.parse(text) : undefined) as T;
    if (response.statusCode >= 400) {
      const error = (parsed as { error?: { code?: string; message?: string; problems?: string[] } }).error;
      const problems = error?.problems?.length ? `\n  ${error.problems.join('\n  ')}` : '';
      throw new Error(`${method} ${path}: ${response.statusCode} ${error?.message ?? text}${problems}`);
    }
    return { status: response.statusCode, body: parsed };
  }
}

import { afterEach } from 'vitest';
import { startReferenceTarget, type ReferenceTarget, type ReferenceTargetOptions } from '../src/index.js';

/**
 * Shared by the reference target's contract tests: a real target on a free port per test (closed
 * after it) and a small SCIM client over the global fetch. Nothing is faked.
 */

export const TOKEN = 'reference-target-test-token';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

const started: ReferenceTarget[] = [];

/** Starts a target that is closed after the current test. */
export async function startTarget(options: Partial<ReferenceTargetOptions> = {}): Promise<ReferenceTarget> {
  const target = await startReferenceTarget({ token: TOKEN, ...options });
  started.push(target);
  return target;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((target) => target.close()));
});

export interface Reply<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string;
  token?: string | null;
  headers?: Record<string, string>;
}

/** A SCIM request relative to the target's SCIM base URL; the body is parsed JSON (undefined when empty). */
export async function scim<T = ScimObject>(
  target: { scimUrl: string },
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined && headers['content-type'] === undefined)
    headers['content-type'] = 'application/scim+json';
  const response = await fetch(`${target.scimUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text === '' ? undefined : JSON.parse(text)) as T,
  };
}

/** A loosely typed SCIM JSON object, for assertions. */
export interface ScimObject {
  [key: string]: unknown;
}

export interface ListBody<T = ScimObject> {
  schemas: string[];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: T[];
}

export function newUser(userName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { schemas: [USER_SCHEMA], userName, ...extra };
}

export function newGroup(displayName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { schemas: [GROUP_SCHEMA], displayName, ...extra };
}

export function patchOp(...operations: Record<string, unknown>[]): Record<string, unknown> {
  return { schemas: [PATCH_OP], Operations: operations };
}

export function filterQuery(filter: string, extra = ''): string {
  return `?filter=${encodeURIComponent(filter)}${extra}`;
}

import { z } from 'zod';
import { isBridgeError } from '../domain/errors.js';
import { jsonSyntaxError } from './json-position.js';

/**
 * The CLI's one error path. A command throws; `cliAction` (cli-action.ts) prints one line to stderr,
 * `scim-bridge <command>: <what failed> — <what to do>`, and exits 1. This module turns whatever was
 * thrown into that line: the causes an operator meets get a line that says what to do; anything else
 * is its message on one line. An invalid configuration keeps one line per problem (SPEC §3).
 */

export type CliErrorCode =
  /** A value given on the command line (or in the environment) the command cannot use. */
  | 'invalid_argument'
  /** A token or secret the command needs is not set. */
  | 'setting_missing'
  /** No answer from the bridge: connection refused, unknown host, timed out, cut off. */
  | 'bridge_unreachable'
  /** The bridge refused the admin token (401). */
  | 'bridge_unauthorized'
  /** The bridge refused the request (4xx) with its JSON error. */
  | 'bridge_refused'
  /** The bridge failed (5xx). */
  | 'bridge_failed'
  /** An answer that is not the bridge's JSON: the URL points at something else. */
  | 'bridge_unexpected'
  | 'file_unreadable'
  | 'file_not_json'
  /** A server could not listen on its port: in use, or not permitted. */
  | 'port_unavailable'
  | 'failed';

export class CliError extends Error {
  readonly code: CliErrorCode;
  /** What to do about it: the part of the line after the dash. */
  readonly hint: string | undefined;

  constructor(code: CliErrorCode, message: string, hint?: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.code = code;
    this.hint = hint;
  }
}

/** Names the settings a failure line points at. */
export interface FailureContext {
  /** What chose the port a server listens on: `PORT`, or `--port`. */
  portSetting?: string;
}

/** What a failed command prints to stderr (without the final newline). */
export function failureText(command: string, error: unknown, context: FailureContext = {}): string {
  if (isBridgeError(error, 'config_invalid')) {
    return `scim-bridge: invalid configuration\n${error.problems.map((p) => `  ${p}`).join('\n')}`;
  }
  const failure = toCliError(error, context);
  const hint = failure.hint ? ` — ${oneLine(failure.hint)}` : '';
  return `scim-bridge ${command}: ${oneLine(failure.message)}${hint}`;
}

/** The mapping of what a command may throw: Node's system errors by `code`, the rest by message. */
export function toCliError(error: unknown, context: FailureContext = {}): CliError {
  if (error instanceof CliError) return error;
  const system = systemErrorOf(error);
  if (system?.path !== undefined && system.code in FILE_PROBLEMS) return fileUnreadable(system.path, error);
  if (system?.syscall === 'listen') return portUnavailable(system, context.portSetting ?? 'PORT', error);
  if (system?.code === 'ERR_INVALID_URL') {
    return new CliError('invalid_argument', `not a URL: ${String(system.input)}`, URL_HINT, { cause: error });
  }
  return new CliError('failed', messageOf(error), undefined, { cause: error });
}

/** What to pass instead of a value that is not a URL. */
export const URL_HINT = "give the bridge's base URL, e.g. --url http://127.0.0.1:8080";

/** Errors of a request that got no answer, by the system code undici or Node gives them. */
const NETWORK_PROBLEMS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stalled',
  UND_ERR_SOCKET: 'connection closed',
};

/**
 * A request to the bridge that failed: when it got no answer, a line naming the bridge's URL (the
 * client knows it, the error does not); any other error as it is.
 */
export function requestFailed(url: string, error: unknown): unknown {
  const code = systemErrorOf(error)?.code;
  const problem = code === undefined ? undefined : NETWORK_PROBLEMS[code];
  if (problem === undefined) return error;
  return new CliError(
    'bridge_unreachable',
    `cannot reach the bridge at ${url} (${problem})`,
    'start the bridge (scim-bridge all), or point the command at it with --url or PORT',
    { cause: error },
  );
}

/** The bridge's JSON error body outside /scim/v2 (SPEC §4). */
const errorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), problems: z.array(z.string()).optional() }),
});

/** What to do about a refusal, by the bridge's error code. */
const REFUSAL_HINTS: Record<string, string> = {
  invalid_input: 'fix the input and run the command again',
  not_found: 'check the name or id given',
  not_enabled: "set ADMIN_TOKEN in the bridge's configuration and restart it",
  conflict: 'check the current state with scim-bridge status',
  payload_too_large: "send less, or raise the bridge's SNAPSHOT_LIMIT_BYTES / BODY_LIMIT_BYTES",
  rate_limited: 'wait a moment and try again',
  store_unavailable: 'check that Redis is up and the bridge can reach it (REDIS_URL)',
};

/** The bridge's answer to an admin request with an error status: its message, problems, what to do. */
export function answerFailed(url: string, status: number, text: string): CliError {
  const parsed = errorBody.safeParse(parseJsonOrUndefined(text));
  if (!parsed.success) return unexpectedAnswer(url, status, text);
  const { code, message, problems = [] } = parsed.data.error;
  if (status === 401) {
    return new CliError(
      'bridge_unauthorized',
      `the bridge at ${url} refused the admin token (401: ${message})`,
      "check ADMIN_TOKEN / ADMIN_TOKEN_FILE: it must be one of the bridge's admin tokens",
    );
  }
  const first = problems[0] === undefined ? '' : `; first of ${problems.length}: ${problems[0]}`;
  const refused = status < 500;
  return new CliError(
    refused ? 'bridge_refused' : 'bridge_failed',
    `${refused ? 'the bridge refused the request' : 'the bridge failed'}: ${message} (${status} ${code})${first}`,
    REFUSAL_HINTS[code] ?? (refused ? "check the command's arguments" : "see the bridge's log"),
  );
}

/** An answer that is not the bridge's JSON. */
export function unexpectedAnswer(url: string, status: number, text: string): CliError {
  const excerpt = text.trim() === '' ? 'an empty body' : `"${clip(oneLine(text), 60)}"`;
  return new CliError(
    'bridge_unexpected',
    `${url} answered ${status} with ${excerpt}, not the bridge's JSON`,
    'check that --url (or PORT) points at scim-bridge',
  );
}

const FILE_PROBLEMS: Record<string, { problem: string; hint: string }> = {
  ENOENT: { problem: 'no such file', hint: 'check the path' },
  EACCES: { problem: 'permission denied', hint: "check the file's permissions" },
  EPERM: { problem: 'permission denied', hint: "check the file's permissions" },
  EISDIR: { problem: 'it is a directory', hint: 'name a file' },
  ENOTDIR: { problem: 'a part of the path is not a directory', hint: 'check the path' },
};

/** A file that cannot be read; `setting` names where its path came from (e.g. ADMIN_TOKEN_FILE). */
export function fileUnreadable(path: string, error: unknown, setting?: string): CliError {
  const code = systemErrorOf(error)?.code ?? '';
  const known = FILE_PROBLEMS[code];
  return new CliError(
    'file_unreadable',
    `cannot read ${setting ? `${setting} ` : ''}${path}: ${known?.problem ?? messageOf(error)}`,
    known?.hint ?? 'check the path',
    { cause: error },
  );
}

/**
 * A file that is not JSON, with where it stops being JSON. `line` is set when the text is one line of
 * a file (one event per line): the position is then a column of that line.
 */
export function notJson(name: string, text: string, expected: string, line?: number): CliError {
  const subject = line === undefined ? `${name} is not JSON` : `${name}: line ${line} is not JSON`;
  const where = jsonSyntaxError(text);
  if (where === undefined) return new CliError('file_not_json', subject, `fix it: ${expected}`);
  const found = `unexpected ${where.found ?? `end of ${line === undefined ? 'file' : 'line'}`}`;
  const position =
    line === undefined ? `line ${where.line}, column ${where.column}` : `column ${where.column}`;
  return new CliError('file_not_json', `${subject} (${found} at ${position})`, `fix it: ${expected}`);
}

function portUnavailable(system: SystemError, setting: string, cause: unknown): CliError {
  const port = system.port ?? '?';
  if (system.code === 'EADDRINUSE') {
    return new CliError(
      'port_unavailable',
      `port ${port} is already in use${system.address ? ` (on ${system.address})` : ''}`,
      `stop what listens on it, or choose a free port with ${setting}`,
      { cause },
    );
  }
  if (system.code === 'EACCES') {
    return new CliError(
      'port_unavailable',
      `not permitted to listen on port ${port}`,
      `choose a port above 1023 with ${setting}`,
      { cause },
    );
  }
  return new CliError('port_unavailable', `cannot listen on port ${port}: ${messageOf(cause)}`, undefined, {
    cause,
  });
}

interface SystemError {
  code: string;
  path?: string;
  syscall?: string;
  port?: number;
  address?: string;
  input?: unknown;
}

/**
 * The first error with a string `code` in a chain: the error itself, its `cause` (fetch wraps the
 * socket's error), or the first of an AggregateError (a host with several addresses).
 */
function systemErrorOf(error: unknown, depth = 0): SystemError | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  if ('code' in error && typeof error.code === 'string') return error as SystemError;
  const cause = 'cause' in error ? error.cause : undefined;
  const first = error instanceof AggregateError ? (error.errors as unknown[])[0] : undefined;
  return systemErrorOf(cause, depth + 1) ?? systemErrorOf(first, depth + 1);
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}

/** Folds a text onto one line, and keeps it readable in a terminal. */
function oneLine(text: string): string {
  return clip(text.replace(/\s*\n\s*/g, '; ').trim(), 400);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

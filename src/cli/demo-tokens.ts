import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, fileUnreadable } from './cli-error.js';

/** The demo's secrets, by the environment variable each one configures. */
export const DEMO_TOKEN_NAMES = [
  'ADMIN_TOKEN',
  'INBOUND_SCIM_TOKEN',
  'WEBHOOK_SECRET',
  'TARGET_TOKEN',
] as const;
export type DemoTokenName = (typeof DEMO_TOKEN_NAMES)[number];
export type DemoTokens = Record<DemoTokenName, string>;

/** Where the demo keeps its tokens, relative to the working directory (git-ignored). */
export const DEMO_TOKENS_FILE = join('.demo', 'tokens.env');

/** The inbound secrets' minimum length (config/schema.ts): a shorter token would stop the bridge. */
const MIN_LENGTH = 16;

const HEADER =
  '# scim-bridge demo tokens: made by the first `npm run demo` here and reused by every start after it.\n' +
  '# Delete this file for new ones. Variables set in the environment win over these.\n';

/**
 * The demo's tokens from `<dir>/.demo/tokens.env`, so that what a user exported, pasted into a
 * script or saved in the browser stays valid across restarts. A token missing from the file (the
 * first start, or a line deleted) is generated and appended; nothing already there is rewritten.
 */
export function loadDemoTokens(dir: string): { tokens: DemoTokens; path: string } {
  const path = join(dir, DEMO_TOKENS_FILE);
  const text = readTokensFile(path);
  const saved = parseTokensFile(text);
  const short = DEMO_TOKEN_NAMES.find((name) => (saved[name]?.length ?? MIN_LENGTH) < MIN_LENGTH);
  if (short) {
    throw new CliError(
      'invalid_argument',
      `${path}: ${short} is shorter than ${MIN_LENGTH} characters`,
      'fix it, or delete the file for new tokens',
    );
  }
  const missing = DEMO_TOKEN_NAMES.filter((name) => saved[name] === undefined);
  if (missing.length === 0) return { tokens: saved as DemoTokens, path };
  const made = Object.fromEntries(missing.map((name) => [name, newToken()]));
  const lines = missing.map((name) => `${name}=${made[name]}\n`).join('');
  mkdirSync(join(dir, '.demo'), { recursive: true, mode: 0o700 });
  const separator = text !== '' && !text.endsWith('\n') ? '\n' : '';
  appendFileSync(path, `${text === '' ? HEADER : separator}${lines}`, { mode: 0o600 });
  return { tokens: { ...saved, ...made } as DemoTokens, path };
}

/** `NAME=value` lines; comments, blank lines and other names are left alone. */
export function parseTokensFile(text: string): Partial<DemoTokens> {
  const tokens: Partial<DemoTokens> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*([A-Z_]+)\s*=\s*(\S+)\s*$/.exec(line);
    const name = match?.[1] as DemoTokenName | undefined;
    if (match?.[2] && name && DEMO_TOKEN_NAMES.includes(name)) tokens[name] = match[2];
  }
  return tokens;
}

function readTokensFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw fileUnreadable(path, error);
  }
}

/** 16 random bytes as hex: well over the 16 characters the inbound secrets need. */
function newToken(): string {
  return `demo-${randomBytes(16).toString('hex')}`;
}

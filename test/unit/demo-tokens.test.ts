import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/cli-error.js';
import { formatHandover, shellWord, type Handover } from '../../src/cli/demo-handover.js';
import { DEMO_TOKEN_NAMES, loadDemoTokens } from '../../src/cli/demo-tokens.js';

// Real: the demo's tokens file in a temporary folder; the printed hand-over as text.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scim-bridge-demo-tokens-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tokensFile = () => join(dir, '.demo', 'tokens.env');

describe('loadDemoTokens', () => {
  it('makes the tokens once, in a file only the user reads, and returns the same ones after', () => {
    const first = loadDemoTokens(dir);
    expect(first.path).toBe(tokensFile());
    expect(Object.keys(first.tokens).sort()).toEqual([...DEMO_TOKEN_NAMES].sort());
    for (const token of Object.values(first.tokens)) expect(token).toMatch(/^demo-[0-9a-f]{32}$/);
    expect(new Set(Object.values(first.tokens)).size).toBe(DEMO_TOKEN_NAMES.length);
    expect(statSync(tokensFile()).mode & 0o777).toBe(0o600);
    const text = readFileSync(tokensFile(), 'utf8');

    expect(loadDemoTokens(dir).tokens).toEqual(first.tokens);
    expect(readFileSync(tokensFile(), 'utf8')).toBe(text);
  });

  it('adds a missing token and rewrites nothing that is there', () => {
    mkdirSync(join(dir, '.demo'));
    const mine =
      '# mine\nADMIN_TOKEN=my-own-admin-token-0001\nOTHER=kept\nWEBHOOK_SECRET=my-own-webhook-secret-01';
    writeFileSync(tokensFile(), mine);
    const { tokens } = loadDemoTokens(dir);
    expect(tokens.ADMIN_TOKEN).toBe('my-own-admin-token-0001');
    expect(tokens.WEBHOOK_SECRET).toBe('my-own-webhook-secret-01');
    const text = readFileSync(tokensFile(), 'utf8');
    expect(text.startsWith(`${mine}\n`)).toBe(true);
    expect(text.slice(mine.length + 1)).toBe(
      `INBOUND_SCIM_TOKEN=${tokens.INBOUND_SCIM_TOKEN}\nTARGET_TOKEN=${tokens.TARGET_TOKEN}\n`,
    );
  });

  it('refuses a token the bridge would refuse, naming the file, and changes nothing', () => {
    mkdirSync(join(dir, '.demo'));
    writeFileSync(tokensFile(), 'ADMIN_TOKEN=short\n');
    expect(() => loadDemoTokens(dir)).toThrow(CliError);
    expect(() => loadDemoTokens(dir)).toThrow(`${tokensFile()}: ADMIN_TOKEN is shorter than 16 characters`);
    expect(readFileSync(tokensFile(), 'utf8')).toBe('ADMIN_TOKEN=short\n');
  });
});

describe('formatHandover', () => {
  const handover: Handover = {
    bridgeUrl: 'http://127.0.0.1:8080',
    host: '127.0.0.1',
    port: 8080,
    adminToken: 'admin-token-00000001',
    scimToken: 'scim-token-000000001',
    webhookSecret: 'webhook-secret-00001',
    target: { scimUrl: 'http://127.0.0.1:9000/api/scim/v2', token: 'target-token-0000001' },
    tokensFile: '/work/.demo/tokens.env',
    exampleUser: 'jose.nunez@example.com',
  };

  it('names the CLI the bridge on its own port, and adds --url where the default would not reach it', () => {
    const local = formatHandover(handover);
    expect(local).toContain('Listening on 127.0.0.1:8080 only');
    expect(local).toContain('  npx scim-bridge status\n');
    const remote = formatHandover({ ...handover, host: '10.1.2.3', bridgeUrl: 'http://10.1.2.3:8080' });
    expect(remote).toContain('Listening on 10.1.2.3:8080 (HOST)');
    expect(remote).toContain('  npx scim-bridge status --url "$BRIDGE_URL"\n');
    expect(remote).toContain('  npx scim-bridge explain user jose.nunez@example.com --url "$BRIDGE_URL"\n');
    expect(remote).toContain('  npx scim-bridge sync --wait --url "$BRIDGE_URL"\n');
  });

  it('quotes a value the shell would split', () => {
    expect(shellWord('demo-0123')).toBe('demo-0123');
    expect(shellWord("it's a token")).toBe(`'it'\\''s a token'`);
    expect(formatHandover({ ...handover, adminToken: 'a b$c' })).toContain("  export ADMIN_TOKEN='a b$c'\n");
  });
});

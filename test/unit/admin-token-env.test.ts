import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminTokenFromEnv } from '../../src/cli/admin-client.js';

describe('the CLI admin token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scim-bridge-admin-token-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prefers ADMIN_TOKEN_FILE and, during a rotation, sends the newest (last) token', () => {
    const file = join(dir, 'ADMIN_TOKEN');
    writeFileSync(file, 'admin-token-old-00000000001\nadmin-token-new-00000000002\n');
    expect(adminTokenFromEnv({ ADMIN_TOKEN_FILE: file, ADMIN_TOKEN: 'ignored-000000000000' })).toBe(
      'admin-token-new-00000000002',
    );
    expect(adminTokenFromEnv({ ADMIN_TOKEN: 'admin-token-only-0000000003' })).toBe(
      'admin-token-only-0000000003',
    );
    expect(adminTokenFromEnv({})).toBe('');
  });
});

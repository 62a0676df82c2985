import { describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import type { Watermark } from '../../src/domain/input.js';
import type { DcState } from '../../src/sources/directory/ldap/usn-dc-state.js';
import { trusted, watermarkOf } from '../../src/sources/directory/ldap/usn.delta.js';

// Real: the trust rules of an Active Directory watermark (src/sources/directory/ldap/usn.delta.ts)
// on given domain-controller states. test/integration/ldap-ad-deltas.test.ts plays the restores on
// a Samba DC; these are the rules a single Samba DC cannot play: another DC answering, a watermark
// older than the tombstone lifetime, a watermark that is not one.
const DC1: DcState = {
  usn: 5000n,
  host: 'dc1.corp.example',
  invocationId: '2573179e-7c58-4747-a7b1-49fdbe95aec0',
  time: '20261125120000.0Z',
  namingContexts: ['DC=corp,DC=example'],
  configurationContext: 'CN=Configuration,DC=corp,DC=example',
};
const mark = watermarkOf(DC1);

function refusal(watermark: Watermark, state: DcState, tombstoneDays = 180): string {
  try {
    trusted(watermark, state, tombstoneDays);
  } catch (error) {
    if (isBridgeError(error, 'watermark_untrusted')) return error.message;
    throw error;
  }
  return 'trusted';
}

describe('the trust of an Active Directory watermark', () => {
  it("keeps the DC's USN, name and invocationId", () => {
    expect(mark).toEqual({
      kind: 'ad-usn',
      value: JSON.stringify({ usn: '5000', at: '20261125120000.0Z' }),
      origin: 'dc1.corp.example/2573179e-7c58-4747-a7b1-49fdbe95aec0',
    });
  });

  it('is trusted by the same DC at the same or a higher USN, within the tombstone lifetime', () => {
    expect(trusted(mark, DC1, 180)).toEqual({ usn: '5000', at: '20261125120000.0Z' });
    const later = { ...DC1, usn: 2n ** 40n, time: '20270520120000.0Z' };
    expect(refusal(mark, later)).toBe('trusted');
  });

  it('is not trusted by another DC, whose USNs are its own', () => {
    expect(refusal(mark, { ...DC1, host: 'dc2.corp.example', usn: 90_000n })).toMatch(
      /another domain controller answers \(dc2\.corp\.example, the watermark is dc1\.corp\.example's\)/,
    );
  });

  it('is not trusted after a restore (a new invocationId), nor when the USN went back', () => {
    const restored = { ...DC1, invocationId: '8b5cc355-0ed8-4cfe-a324-7118141f677d', usn: 6000n };
    expect(refusal(mark, restored)).toMatch(/invocationId changed from 2573179e-.* to 8b5cc355-/);
    expect(refusal(mark, { ...DC1, usn: 4999n })).toMatch(/highestCommittedUSN went back from 5000 to 4999/);
  });

  it('is not trusted beyond the tombstone lifetime: deletions since may be purged', () => {
    const late = { ...DC1, usn: 7000n, time: '20270101120000.0Z' };
    expect(refusal(mark, late, 180)).toBe('trusted');
    expect(refusal(mark, late, 30)).toMatch(/37 days old, beyond the tombstone lifetime \(30 days\)/);
  });

  it('is not trusted when it is not one', () => {
    expect(refusal({ ...mark, kind: 'openldap-accesslog' }, DC1)).toMatch(
      /it is a openldap-accesslog watermark/,
    );
    expect(refusal({ ...mark, value: '{"usn":"x"}' }, DC1)).toMatch(/value or origin is not one/);
    expect(refusal({ ...mark, origin: 'dc1.corp.example' }, DC1)).toMatch(/value or origin is not one/);
  });
});

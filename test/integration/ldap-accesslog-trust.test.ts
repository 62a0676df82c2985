import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { sectionOf } from '../../src/config/catalog.js';
import { ldapSettings } from '../../src/sources/directory/ldap/ldap.settings.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ldapDelta } from '../../src/sources/directory/ldap/ldap-delta.js';
import { testConfig } from '../support/config.js';
import { ldapSourceEnv, testDirectory } from '../support/ldap-directory.js';
import { startSlapd, type Slapd } from '../support/slapd.js';

// Real: slapd with syncprov and accesslog (test/support/slapd.ts), read by the directory's delta
// read itself. What is checked: a directory restored from a backup is never trusted, however soon
// after its last write — slapadd stamps the restored database with the load's own time, newer than
// the watermark, while the access log holds no write since.
describe("an OpenLDAP directory's delta watermark", () => {
  const SUFFIX = 'dc=example,dc=com';
  const directory = testDirectory(SUFFIX);
  let dir: string;
  let slapd: Slapd;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-accesslog-trust-'));
    writeFileSync(join(dir, 'directory.ldif'), directory.ldif(3, []));
    slapd = await startSlapd({ suffix: SUFFIX, ldif: [join(dir, 'directory.ldif')] });
  });
  afterAll(async () => {
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused once the directory was restored, even within a second of its last write', async () => {
    const delta = ldapDelta(sectionOf(ldapSettings, testConfig(ldapSourceEnv(slapd, SUFFIX, 1)).directory));
    if (!delta) throw new Error('the openldap preset reads deltas from the access log');
    const backup = await slapd.backup();
    const start = await delta.position();
    const ldap = new Client({ url: slapd.url });
    await ldap.bind(slapd.rootDn, slapd.rootPassword);
    await ldap.add(`uid=later,ou=people,${SUFFIX}`, {
      objectClass: 'inetOrgPerson',
      uid: 'later',
      cn: 'Later',
      sn: 'Later',
      mail: 'later@example.com',
    });
    await ldap.unbind();
    const read = await delta.changesSince(start);
    expect(read.changes.map((c) => [c.op, 'kind' in c ? c.kind : undefined])).toEqual([['upsert', 'users']]);
    // An unchanged directory keeps its watermark trusted.
    expect((await delta.changesSince(read.watermark)).changes).toEqual([]);

    await slapd.restore(backup);
    await expect(delta.changesSince(read.watermark)).rejects.toMatchObject({ code: 'watermark_untrusted' });
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { sectionOf } from '../../src/config/catalog.js';
import { ldapSettings } from '../../src/sources/directory/ldap/ldap.settings.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ldapDelta } from '../../src/sources/directory/ldap/ldap-delta.js';
import { testConfig } from '../support/config.js';
import { ldapChange, ldapServerEnv, ldapSourceEnv, range, testDirectory } from '../support/ldap-directory.js';
import { startSlapd, type Slapd } from '../support/slapd.js';

// Real: slapd with syncprov and accesslog (test/support/slapd.ts), a size limit of 2 entries on
// the log database for every account but its rootdn, and the directory's delta read itself. What is
// checked: a backlog longer than the server's size limit is read whole (in time windows, many of
// them at this limit, so that a window's end falls on an entry), not refused at every read for
// ever; a user base that is gone fails the read instead of making every
// changed user look deleted.
describe('delta reads of an OpenLDAP access log', () => {
  const SUFFIX = 'dc=example,dc=com';
  const READER = `cn=reader,${SUFFIX}`;
  const PASSWORD = 'reader-password-0123';
  const directory = testDirectory(SUFFIX);
  let dir: string;
  let slapd: Slapd;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-accesslog-backlog-'));
    const reader = `dn: ${READER}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: ${PASSWORD}\n`;
    writeFileSync(join(dir, 'directory.ldif'), directory.ldif(30, [], [reader]));
    slapd = await startSlapd({
      suffix: SUFFIX,
      ldif: [join(dir, 'directory.ldif')],
      logDatabaseConfig: ['limits users size=2'],
    });
  });
  afterAll(async () => {
    await slapd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads 25 changes, 2 entries at most per search', async () => {
    const env = ldapServerEnv(
      {
        url: slapd.url,
        bindDn: READER,
        bindPassword: PASSWORD,
        userBase: `ou=people,${SUFFIX}`,
        groupBase: `ou=groups,${SUFFIX}`,
      },
      1,
    );
    const delta = ldapDelta(sectionOf(ldapSettings, testConfig(env).directory));
    if (!delta) throw new Error('the openldap preset reads deltas from the access log');
    const start = await delta.position();
    const ldap = new Client({ url: slapd.url });
    await ldap.bind(slapd.rootDn, slapd.rootPassword);
    for (const n of range(1, 25))
      await ldap.modify(directory.dnOf(n), ldapChange('replace', 'sn', `Changed${n}`));
    await ldap.unbind();

    const read = await delta.changesSince(start);
    const familyNames = read.changes.flatMap((c) =>
      c.op === 'upsert' && c.kind === 'users'
        ? [(c.item as { name?: { familyName?: string } }).name?.familyName]
        : [],
    );
    expect(familyNames.sort()).toEqual(
      range(1, 25)
        .map((n) => `Changed${n}`)
        .sort(),
    );
    // The watermark is the newest write: read from it, nothing is new.
    expect((await delta.changesSince(read.watermark)).changes).toEqual([]);
  });

  it('fails, deleting nobody, when the user base is gone', async () => {
    const delta = ldapDelta(sectionOf(ldapSettings, testConfig(ldapSourceEnv(slapd, SUFFIX, 1)).directory));
    if (!delta) throw new Error('the openldap preset reads deltas from the access log');
    const start = await delta.position();
    const ldap = new Client({ url: slapd.url });
    await ldap.bind(slapd.rootDn, slapd.rootPassword);
    await ldap.modify(directory.dnOf(30), ldapChange('replace', 'sn', 'Moved'));
    // The people move to another OU: ou=people, the configured user base, no longer exists.
    await ldap.modifyDN(`ou=people,${SUFFIX}`, 'ou=staff');
    await ldap.unbind();
    await expect(delta.changesSince(start)).rejects.toMatchObject({
      code: 'source_unavailable',
      message: expect.stringContaining(`the base DN "ou=people,${SUFFIX}" does not exist`),
    });
  });
});

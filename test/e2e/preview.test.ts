import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  settledSync,
  startAdminFixture,
  startSync,
  type AdminFixture,
} from '../integration/admin-fixture.js';
import { ldapSourceEnv, range, testDirectory } from '../support/ldap-directory.js';
import { startSlapd, type Slapd } from '../support/slapd.js';
import { expectCleanSession, openBrowser, SCREENSHOTS, signIn, type TestBrowser } from './browser.js';

// Real: a headless Chromium using the dashboard's Preview view, the admin API (its progress stream),
// Redis, BullMQ workers, slapd (test/support/slapd.ts) read by the ldap source, the reference target
// over HTTP. A known directory of 20 people, synced once with the default scope and mapping; a
// candidate that narrows the scope to one group and maps givenName is previewed from a file, and a
// bad expression is refused with its setting and position.
const SUFFIX = 'dc=example,dc=com';
const PEOPLE = 20;
const { dnOf, groupDn } = testDirectory(SUFFIX);

/** eng: p01–p05 and the nested group platform (p06–p08); p09–p20 in no group. */
function directoryLdif(): string {
  return testDirectory(SUFFIX).ldif(PEOPLE, [
    ['platform', range(6, 8).map(dnOf)],
    ['eng', [...range(1, 5).map(dnOf), groupDn('platform')]],
  ]);
}

const HR_USER = { id: 'hr-1', userName: 'hr.one@example.com', active: true };

const CANDIDATE = {
  scope: { users: `memberOf("${groupDn('eng')}")` },
  mapping: { users: { givenName: 'upper(uid)' } },
};

describe('the Preview view in Chromium, against a known LDAP directory', () => {
  let dir: string;
  let slapd: Slapd;
  let fixture: AdminFixture;
  let browser: TestBrowser;
  let page: TestBrowser['page'];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scim-bridge-preview-'));
    writeFileSync(join(dir, 'directory.ldif'), directoryLdif());
    // A second directory beside the LDAP one: a file of two people (the Syncs view's input choice).
    writeFileSync(join(dir, 'hr.json'), JSON.stringify({ users: [HR_USER], groups: [] }));
    writeFileSync(
      join(dir, 'bridge.yaml'),
      `directories:\n  - name: hr\n    source: file\n    file:\n      path: ${join(dir, 'hr.json')}\n`,
    );
    slapd = await startSlapd({ suffix: SUFFIX, ldif: [join(dir, 'directory.ldif')] });
    fixture = await startAdminFixture({
      ...ldapSourceEnv(slapd, SUFFIX),
      CONFIG_FILE: join(dir, 'bridge.yaml'),
    });
    const first = await settledSync(fixture, await startSync(fixture, {}));
    expect(first.state).toBe('completed');
    await fixture.engine.drain();
    browser = await openBrowser(fixture.engine.bridge.http.url);
    page = browser.page;
    await signIn(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
    await slapd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const syncCount = async () =>
    ((await fixture.http().get('/admin/sync?limit=100').set(auth).expect(200)).body as { syncs: unknown[] })
      .syncs.length;

  it('previews a candidate read from a file: counts, one attribute before → after, guards, both configurations', async () => {
    const before = fixture.target.stats().requests.length;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: 'Preview', level: 1 }).waitFor();
    expect(await page.getByLabel('Input').inputValue()).toBe('directory:directory');
    await page.getByLabel('Or read it from a file').setInputFiles({
      name: 'candidate.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(CANDIDATE, null, 2)),
    });
    await expect
      .poll(() => page.getByLabel('Candidate scope and mapping (JSON)').inputValue())
      .toContain('upper(uid)');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await page.waitForURL(/#\/preview\/sync-/);
    await page.locator('#preview-result[data-state="completed"]').waitFor({ timeout: 30_000 });
    await page.locator('#sync-live[data-phase="completed"]').waitFor();

    const counts = await page
      .getByRole('table', { name: 'Identities by category' })
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => Array.from(row.querySelectorAll('td'), (c) => c.textContent).slice(0, 3)),
      );
    expect(counts).toEqual([
      ['entering', '0', '0'],
      ['leaving', '12', '0'],
      ['changed', '8', '0'],
      ['unmappable', '0', '0'],
      ['collisions', '0', '0'],
      ['unchanged', '0', '2'],
    ]);
    const p01 = page.locator('#preview-changed tr', { hasText: 'p01@example.com' });
    expect(await p01.locator('li[data-attribute="givenName"]').innerText()).toBe('givenName: (none) → P01');
    await page.locator('#preview-leaving tr', { hasText: 'p20@example.com' }).waitFor();
    // 12 of 20 managed users would leave: over DEPROVISION_LIMIT (20%), and the source would list 60% fewer.
    expect(
      await page.locator('#preview-guards li').evaluateAll((li) => li.map((l) => l.dataset.reason)),
    ).toEqual(['deprovision-limit', 'configuration-changed', 'source-shrink']);
    const scope = page.locator('tr[data-setting="scope.users"]');
    expect(await scope.getAttribute('class')).toBe('differs');
    expect((await scope.innerText()).replace(/\s+/g, ' ')).toBe(
      `scope.users (empty: the source's own) ${CANDIDATE.scope.users} differs`,
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'preview.png'), fullPage: true });
    // The sync's page links back to the preview, which reopens at its own address.
    const address = page.url();
    await page.getByRole('link', { name: 'the plan in full' }).click();
    await page.locator('#sync-state', { hasText: 'completed' }).waitFor();
    await page.getByRole('link', { name: 'What its candidate scope and mapping change' }).click();
    await page.locator('#preview-result[data-state="completed"]').waitFor();
    expect(page.url()).toBe(address);
    // A preview: nothing but reads reached the platform.
    const sent = fixture.target.stats().requests.slice(before);
    expect(sent.filter((r) => r.method !== 'GET')).toEqual([]);
  }, 60_000);

  it("shows the API's error for a bad expression, with its setting and position, and starts nothing", async () => {
    const syncs = await syncCount();
    const url = page.url();
    const text = page.getByLabel('Candidate scope and mapping (JSON)');
    const message = page.locator('#preview-message [role="alert"]');

    await text.fill('scope:\n  users: memberOf("eng")\n');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await message.filter({ hasText: /^The candidate is not JSON: .*It looks like YAML/s }).waitFor();

    await text.fill(JSON.stringify({ scope: { users: 'memberOf("cn=eng"' } }));
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await message.filter({ hasText: 'The candidate scope and mapping do not compile' }).waitFor();
    expect(await message.locator('li').allInnerTexts()).toEqual([
      'candidate.scope.users: at line 1, column 18: Expected RPAREN, got EOF',
    ]);
    expect(page.url()).toBe(url);
    expect(await syncCount()).toBe(syncs);
    // The browser reports the 400 it was answered; that was the point.
    browser.problems.splice(
      0,
      browser.problems.length,
      ...browser.problems.filter((p) => !/status of 400/.test(p)),
    );
    expectCleanSession(browser, fixture.engine.bridge.http.url);
  }, 30_000);

  it('shows why a candidate that keeps no user in would be refused, with whom it leaves out', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Preview' }).click();
    // The preview before has a candidate form too: fill the new view's, once it has replaced that
    // page (after reading the inputs), not the old one.
    await page.locator('#preview-result').waitFor({ state: 'detached' });
    await page
      .getByLabel('Candidate scope and mapping (JSON)')
      .fill(JSON.stringify({ scope: { users: 'false' } }));
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await page.waitForURL(/#\/preview\/sync-/);
    await page.locator('#preview-result[data-state="failed"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('#preview-result [role="alert"]').innerText()).toMatch(
      /^The preview failed: source_empty: The directory source \(ldap\) lists 20 users, but the candidate's scope and mapping leave none of them in \(20 out of scope\)/,
    );
    // allInnerTexts() does not wait: the table is waited for first (drawn with the result, or later).
    const rows = page.getByRole('table', { name: 'Identities by category' }).locator('tbody tr');
    await rows.nth(1).waitFor();
    expect((await rows.nth(1).locator('td').allInnerTexts()).slice(0, 3)).toEqual(['leaving', '20', '0']);
    await page.locator('#preview-leaving tr', { hasText: 'p20@example.com' }).waitFor();
    expect(await page.locator('#preview-guards').count()).toBe(0);
    expect(fixture.target.users().filter((u) => u.active === false)).toEqual([]);
  }, 60_000);
  it('starts a sync of the input chosen in the Syncs view, and lists each sync with its input', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Syncs' }).click();
    const input = page.getByLabel('Input');
    expect(await input.inputValue()).toBe('directory:directory');
    await input.selectOption('directory:hr');
    await page.getByRole('button', { name: 'Start dry run' }).click();
    await page.locator('#sync-state', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Syncs' }).click();
    const row = page
      .getByRole('table', { name: 'Recent syncs, newest first' })
      .getByRole('row')
      .filter({ hasText: 'directory:hr' });
    await row.waitFor();
    expect((await row.locator('td').allInnerTexts()).slice(1, 4)).toEqual([
      'directory:hr',
      'completed',
      'dry run',
    ]);
    expect(fixture.target.findUserByUserName(HR_USER.userName)).toBeUndefined();
  }, 60_000);
});

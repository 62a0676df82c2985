import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminFixture, type AdminFixture } from '../integration/admin-fixture.js';
import { openBrowser, SCREENSHOTS, signIn, type TestBrowser } from './browser.js';

// Real: a headless Chromium (Debian's, driven by playwright-core) using the dashboard the bridge
// serves at /admin/ui, the bridge's admin API, Redis, BullMQ workers, the reference target. The
// conflicts come from the inputs' own writes (the desired-state API as SCIM push and as events).
describe('the Conflicts view in Chromium', () => {
  let fixture: AdminFixture;
  let browser: TestBrowser;
  let page: Page;
  let ambiguousTarget = '';

  beforeAll(async () => {
    fixture = await startAdminFixture();
    const api = fixture.engine.bridge.store.api;
    // Events feed Ada; then the IdP pushes a user with her userName: parked, a conflict.
    await api.as('events').upsertUser({ id: 'hr-ada', userName: 'ada@example.com', active: true });
    await fixture.engine.drain();
    await api.as('scim').upsertUser({
      id: 'scim-ada',
      userName: 'Ada@example.com',
      name: { givenName: 'Ada', familyName: 'Pushed' },
      active: true,
    });
    // Two platform accounts fit Grace (one by externalId, one by userName): ambiguous.
    fixture.target.insertUser({ userName: 'g.hopper@example.com', externalId: 'ext-grace', active: true });
    ambiguousTarget = fixture.target.insertUser({ userName: 'grace@example.com', active: true }).id;
    await api
      .as('events')
      .upsertUser({ id: 'hr-grace', userName: 'grace@example.com', externalId: 'ext-grace', active: true });
    await fixture.engine.drain();
    browser = await openBrowser(fixture.engine.bridge.http.url);
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  const table = () => page.getByRole('table', { name: 'Conflicts, most recently seen first' });
  const live = () => page.locator('#live');

  it('lists both claimants by name and owner, the platform account and when they were seen', async () => {
    await signIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Conflicts' }).click();
    await page.getByRole('heading', { name: 'Conflicts', level: 1 }).waitFor();
    await table().waitFor();
    const ada = table().getByRole('row', { name: /Ada@example\.com \(scim\)/ });
    await expect
      .poll(() => ada.innerText())
      .toMatch(/same platform account\s+Ada@example\.com \(scim\)\s+ada@example\.com \(events\)/);
    const grace = table().getByRole('row', { name: /grace@example\.com \(events\)/ });
    expect(await grace.innerText()).toContain('two platform accounts fit');
    expect(await grace.getByRole('button', { name: /^Link / }).count()).toBe(2);
    expect(await page.getByText('2 open conflicts.').count()).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, 'conflicts.png'), fullPage: true });
  });

  it('ignores a conflict, then links it from the ignored ones: the claimant takes the account', async () => {
    const account = fixture.target.users().find((u) => u.userName === 'ada@example.com');
    await page.getByRole('button', { name: 'Ignore — Ada@example.com' }).click();
    await expect.poll(() => live().innerText()).toContain('Ignored: Ada@example.com stays parked');
    await expect.poll(() => page.getByText('1 open conflict.').count()).toBe(1);
    await page.getByLabel('Status').selectOption('ignored');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('button', { name: 'Link — Ada@example.com' }).click();
    await expect.poll(() => live().innerText()).toContain('Linked: Ada@example.com (scim) now owns');
    await fixture.engine.drain();
    expect(fixture.target.getUser(account?.id ?? '')).toMatchObject({
      externalId: 'scim-ada',
      name: { givenName: 'Ada', familyName: 'Pushed' },
    });
    expect(fixture.target.users().filter((u) => u.userName.toLowerCase() === 'ada@example.com')).toHaveLength(
      1,
    );
  });

  it('links an ambiguous conflict to the candidate the admin picks', async () => {
    await page.getByLabel('Status').selectOption('open');
    await page.getByRole('button', { name: 'Show' }).click();
    await page
      .getByRole('button', { name: `Link the userName match, ${ambiguousTarget} — grace@example.com` })
      .click();
    await expect.poll(() => live().innerText()).toContain('Linked: grace@example.com (events)');
    await expect.poll(() => page.getByText('0 open conflicts.').count()).toBe(1);
    await fixture.engine.drain();
    expect(fixture.target.getUser(ambiguousTarget)).toMatchObject({ externalId: 'ext-grace' });
    expect(browser.problems).toEqual([]);
  });
});

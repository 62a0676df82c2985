import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import {
  ADMIN_TOKEN,
  BAD_USER,
  fixBadUserQuietly,
  settledSync,
  snapshotOf,
  startAdminFixture,
  startSync,
  type AdminFixture,
} from '../integration/admin-fixture.js';
import { expectCleanSession, openBrowser, SCREENSHOTS, type TestBrowser } from './browser.js';

// Real: a headless Chromium (Debian's, driven by playwright-core) using the dashboard the bridge
// serves at /admin/ui, the bridge's admin API, Redis, BullMQ workers, the reference target. The
// screenshots of the README's "Operating" section are taken here and in dashboard-views.test.ts.
describe('web dashboard in Chromium', () => {
  let fixture: AdminFixture;
  let browser: TestBrowser;
  let page: TestBrowser['page'];
  let context: TestBrowser['context'];
  const nav = () => page.getByRole('navigation', { name: 'Main' });

  beforeAll(async () => {
    fixture = await startAdminFixture();
    await settledSync(fixture, await startSync(fixture, { snapshot: snapshotOf(12) }));
    await fixture.engine.bridge.store.api.upsertUser(BAD_USER, { signal: { source: 'events' } });
    await fixture.engine.drain();
    // Drift on the target, so that the dry run has something to plan.
    for (const u of fixture.target.users().slice(0, 2)) {
      fixture.target.updateUser(u.id, { name: { givenName: 'Drifted', familyName: 'Away' } });
    }
    browser = await openBrowser(fixture.engine.bridge.http.url);
    ({ page, context } = browser);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it('signs in with the admin token, kept in session storage only', async () => {
    await page.goto('/admin/ui');
    expect(new URL(page.url()).pathname).toBe('/admin/ui/');
    const token = page.getByLabel('Admin token');
    await expect.poll(() => token.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('not-the-right-token-123');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'refused' }).waitFor();

    await token.fill(ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.locator('#banner[data-state="reachable"]').waitFor();
    const storage = await page.evaluate(() => ({
      session: sessionStorage.getItem('scim-bridge.admin-token'),
      local: localStorage.length,
      cookie: document.cookie,
    }));
    expect(storage).toEqual({ session: ADMIN_TOKEN, local: 0, cookie: '' });
    await page.getByText('users desired / managed').waitFor();
    await page.getByRole('table', { name: 'Jobs by state' }).waitFor();
    // Each input with what it can do and how fresh it is: the events input pushes, the directory is off.
    const inputs = page.getByRole('table', { name: 'Inputs and their freshness' });
    await inputs.waitFor();
    const rows = await inputs.getByRole('row').allInnerTexts();
    expect(rows.find((row) => row.startsWith('events'))).toMatch(/push \/webhooks\/events/);
    expect(rows.find((row) => row.startsWith('directory:directory'))).toMatch(/disabled/);
    await page.screenshot({ path: join(SCREENSHOTS, 'overview.png'), fullPage: true });
  });

  it('opens the read-only queue board with a session cookie, not the token', async () => {
    const [board] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: /queue board/ }).click(),
    ]);
    board.on('request', (request) => browser.requests.push(request.url()));
    await board.waitForURL(/\/admin\/queues\/$/);
    await board.getByText('reconcile', { exact: true }).first().waitFor();
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.path, c.httpOnly, c.sameSite])).toEqual([
      ['scim-bridge-queues', '/admin/queues', true, 'Strict'],
    ]);
    expect(cookies[0]?.value).not.toContain(ADMIN_TOKEN);
    await board.setViewportSize({ width: 1280, height: 720 });
    await board.screenshot({ path: join(SCREENSHOTS, 'queue-board.png') });
    await board.close();
  });

  it('starts a dry run and shows its plan once it finishes', async () => {
    await nav().getByRole('link', { name: 'Syncs' }).click();
    await page.getByRole('heading', { name: 'Syncs', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Start dry run' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/syncs\/sync-/);
    await page.locator('#sync-state', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    const plan = page.getByRole('table', { name: 'Planned changes by kind' });
    await plan.waitFor();
    const users = await plan.getByRole('row', { name: /^users/ }).innerText();
    // 2 drifted users to update, the failed one to create.
    expect(users.split(/\s+/)).toEqual(['users', '1', '2', '0', '10']);
    // Grouped by action, each named beside its id.
    const updates = page.getByRole('table', { name: /^To update: 1–2 of 2/ });
    await updates.waitFor();
    const drifted = fixture.target.users().filter((u) => u.name?.givenName === 'Drifted');
    for (const u of drifted) {
      const id = u.externalId ?? '';
      await updates.getByRole('row', { name: `user ${u.userName} ${id} name` }).waitFor();
    }
    await page
      .getByRole('table', { name: /^To create: 1–1 of 1/ })
      .getByRole('link', { name: 'bad' })
      .waitFor();
    expect(await page.locator('#sync-live').getAttribute('data-phase')).toBe('completed');
    expect(fixture.target.users().filter((u) => u.name?.givenName === 'Drifted')).toHaveLength(2);
    await page.screenshot({ path: join(SCREENSHOTS, 'sync-plan.png'), fullPage: true });
  });

  it('opens a failed identity with its trace, and retries it once the cause is fixed', async () => {
    await nav().getByRole('link', { name: 'Failures' }).click();
    await page.getByRole('table', { name: /Permanent failures/ }).waitFor();
    await page.getByRole('cell', { name: /target_invalid_request/ }).waitFor();
    // Filtered to groups: the failed user is not listed, and there is nothing to select.
    await page.locator('#failure-kind').selectOption('group');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText(/identities in failure; showing those that match\./).waitFor();
    await page.getByText('No failures.').waitFor();
    await page.getByRole('button', { name: 'Retry selected' }).click();
    await page.getByRole('alert').filter({ hasText: 'Select the identities to retry first.' }).waitFor();
    await page.locator('#failure-kind').selectOption('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('checkbox', { name: 'Select user:bad' }).waitFor();
    await page.getByRole('link', { name: 'user:bad' }).click();
    await page.locator('#identity-status', { hasText: 'failed' }).waitFor();
    const error = page.locator('#last-error');
    await expect.poll(() => error.innerText()).toMatch(/target_invalid_request \(HTTP 400\)/);
    expect(await error.innerText()).toMatch(/Target detail: .*userName/);
    await page.getByRole('table', { name: /Signals, decisions, requests/ }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'identity-trace.png'), fullPage: true });

    await fixBadUserQuietly(fixture);
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.locator('#identity-status', { hasText: 'in-sync' }).waitFor({ timeout: 45_000 });
    expect(fixture.target.findUserByUserName('fixed@example.com')).toBeDefined();
    await nav().getByRole('link', { name: 'Failures' }).click();
    await page.getByText('No failures.').waitFor();
    await page.getByRole('button', { name: 'Retry all matching' }).click();
    await page.getByRole('status').filter({ hasText: 'Queued 0 for retry.' }).waitFor();
  }, 60_000);

  it('shows a held sync in the top banner, names what it would remove, and cancels it', async () => {
    const members = () => fixture.target.groups().map((g) => g.members?.length ?? 0);
    const before = members();
    // Half of the directory is missing: over the default limit (20% of the managed users).
    const held = await startSync(fixture, { snapshot: snapshotOf(6) });
    expect((await settledSync(fixture, held)).state).toBe('awaiting-approval');
    await nav().getByRole('link', { name: 'Overview' }).click();
    const link = page.locator('#banner-held');
    await link.waitFor({ timeout: 20_000 });
    expect(await link.innerText()).toContain(`Sync ${held} is held for approval`);
    await page.locator('#banner.warn').waitFor();
    await link.click();
    await page.waitForURL(new RegExp(`#/syncs/${held}$`));
    await page.locator('#sync-state', { hasText: 'awaiting-approval' }).waitFor();
    expect(await page.locator('#held').innerText()).toMatch(
      /^Held: nothing of this sync has been applied, because it deprovisions \d+ users, over DEPROVISION_LIMIT 500,20%/,
    );
    await page.getByRole('heading', { name: 'Removals held for approval' }).waitFor();
    const users = page.getByRole('table', { name: /^Users to deprovision/ });
    await users.getByRole('row', { name: /u11 user11@example\.com/ }).waitFor();
    const memberships = page.getByRole('table', { name: /^Members to remove \(6 from 2 groups\)/ });
    await memberships.getByRole('row', { name: /g-eng 3 Engineering: .*user6@example\.com/ }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'sync-held.png'), fullPage: true });

    await page.getByRole('button', { name: 'Cancel sync' }).click();
    await page.locator('#sync-state', { hasText: 'failed' }).waitFor();
    expect(members()).toEqual(before);
    expect(
      fixture.target.users().filter((u) => u.userName === 'user11@example.com' && u.active),
    ).toHaveLength(1);
    await expect.poll(() => link.count(), { timeout: 20_000 }).toBe(0);
  }, 60_000);

  it('shows a refused platform token in the health banner', async () => {
    fixture.target.setToken('a-rotated-token-the-bridge-lacks');
    await fixture.engine.bridge.store.api.upsertUser({
      id: 'u-late',
      userName: 'late@example.com',
      active: true,
    });
    await page.locator('#banner[data-state="auth-failed"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#banner').innerText()).toMatch(/refuses the SCIM token .* work is kept/);
  }, 30_000);

  it('talked to the bridge only, never put the token in a URL, and raised no script error', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await expect.poll(async () => (await context.cookies()).length).toBe(0);
    expectCleanSession(browser, fixture.engine.bridge.http.url);
  });
});

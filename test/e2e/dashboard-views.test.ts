import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  settledSync,
  snapshotOf,
  startAdminFixture,
  startSync,
  type AdminFixture,
} from '../integration/admin-fixture.js';
import { expectCleanSession, openBrowser, SCREENSHOTS, signIn, type TestBrowser } from './browser.js';

// Real: a headless Chromium using the dashboard the bridge serves, the admin API (its progress
// stream), Redis, BullMQ workers, the reference target (latency, an outage). The views that name
// identities: a sync followed live, its changes by action, an identity beside its platform copy,
// the chart of recent syncs.
describe('dashboard views in Chromium: live progress, names, the platform copy, the chart', () => {
  let fixture: AdminFixture;
  let browser: TestBrowser;
  let page: TestBrowser['page'];
  const nav = () => page.getByRole('navigation', { name: 'Main' });

  beforeAll(async () => {
    // Two requests at a time, so that a sync of a few dozen users runs long enough to be watched.
    fixture = await startAdminFixture({ TARGET_CONCURRENCY: '2' });
    await settledSync(fixture, await startSync(fixture, { snapshot: snapshotOf(12) }));
    await fixture.engine.drain();
    browser = await openBrowser(fixture.engine.bridge.http.url);
    page = browser.page;
    await signIn(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it('follows a running sync live through each phase, summary first, and says completed once it ended', async () => {
    await nav().getByRole('link', { name: 'Syncs' }).click();
    await page.getByRole('heading', { name: 'Syncs', level: 1 }).waitFor();
    // Records what the page shows, as it changes: the phase of the live panel and its progress text.
    await page.evaluate(() => {
      const seen: { at: number; phase: string; text: string }[] = [];
      Object.assign(window, { seenProgress: seen });
      new MutationObserver(() => {
        const live = document.getElementById('sync-live');
        const text = document.getElementById('sync-progress-text')?.textContent ?? '';
        const phase = live?.dataset.phase ?? '';
        const last = seen[seen.length - 1];
        if (live && (!last || last.phase !== phase || last.text !== text))
          seen.push({ at: Date.now(), phase, text });
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    fixture.target.faults.setLatency({ ms: 100 });
    try {
      const jobId = await startSync(fixture, { snapshot: snapshotOf(40) });
      // The overview follows the running sync too; its link opens the sync.
      await nav().getByRole('link', { name: 'Overview' }).click();
      await page.locator('#sync-live[data-state="running"]').waitFor({ timeout: 20_000 });
      await page.getByRole('link', { name: jobId }).first().click();
      await page.waitForURL(new RegExp(`#/syncs/${jobId}$`));
      await page.locator('#sync-live[data-phase="applying"]').waitFor({ timeout: 20_000 });
      await page.screenshot({ path: join(SCREENSHOTS, 'sync-live.png'), fullPage: true });
      await page.locator('#sync-live[data-phase="completed"]').waitFor({ timeout: 30_000 });
    } finally {
      fixture.target.faults.setLatency(null);
    }
    const seen = (await page.evaluate(
      () => (window as unknown as { seenProgress: unknown }).seenProgress,
    )) as {
      at: number;
      phase: string;
      text: string;
    }[];
    expect(seen.at(-1)?.phase).toBe('completed');
    // While it applied 28 creates, two at a time, the page showed its progress as it went: at least
    // twice a second on average.
    const applying = seen.filter((s) => s.phase === 'applying');
    expect(new Set(applying.map((s) => s.text)).size).toBeGreaterThanOrEqual(3);
    const span = applying.at(-1)!.at - applying[0]!.at;
    expect(span / (applying.length - 1)).toBeLessThanOrEqual(500);
    // Every phase is listed, done.
    const phases = page.locator('#sync-live ol.phases li');
    expect(
      await phases.evaluateAll((items) =>
        items.map((li) => [li.getAttribute('data-phase'), li.getAttribute('data-status')]),
      ),
    ).toEqual(
      ['queued', 'reading-source', 'listing-target', 'planning', 'applying', 'done'].map((p) => [p, 'done']),
    );
    expect(await page.locator('#sync-live-note').innerText()).toMatch(/^The sync completed in /);
    await page.locator('#sync-state', { hasText: 'completed' }).waitFor();
    // Summary first, then the plan, then the changes by action, named and paged.
    const headings = await page.locator('main h2').allInnerTexts();
    expect(headings.indexOf('Summary')).toBeGreaterThan(-1);
    expect(headings.indexOf('Summary')).toBeLessThan(headings.indexOf('Plan'));
    expect(headings.indexOf('Plan')).toBeLessThan(headings.indexOf('Changes by action'));
    const creates = page.getByRole('table', { name: 'To create: 1–25 of 28' });
    await creates.getByRole('row', { name: 'user user12@example.com u12 —' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'sync-detail.png'), fullPage: true });
    await page.locator('#changes-create').getByRole('button', { name: 'Next' }).click();
    const rest = page.getByRole('table', { name: 'To create: 26–28 of 28' });
    await rest.getByRole('row', { name: 'user user39@example.com u39 —' }).waitFor();
  }, 60_000);

  it("shows an identity's desired state beside the platform's copy, the differences marked", async () => {
    const onPlatform = fixture.target.findUserByUserName('user1@example.com')!;
    fixture.target.updateUser(onPlatform.id, { name: { givenName: 'Changed', familyName: 'Elsewhere' } });
    await nav().getByRole('link', { name: 'Identities' }).click();
    await page.getByLabel('Source id, userName or displayName').fill('user1@example.com');
    await page.getByRole('button', { name: 'Look up' }).click();
    const verdict = page.locator('#platform-verdict');
    await expect.poll(() => verdict.innerText()).toMatch(/^Differs in name: the next run changes it\./);
    const name = page.locator('tr[data-attribute="name"]');
    expect(await name.getAttribute('class')).toBe('differs');
    expect((await name.innerText()).replace(/\s+/g, ' ')).toBe(
      'name givenName: Given1 familyName: Family1 givenName: Changed familyName: Elsewhere differs',
    );
    expect(await page.locator('tr[data-attribute="userName"]').getAttribute('class')).toBeNull();
    await page.locator('#related-groups').getByRole('link', { name: 'Operations' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'identity-compare.png'), fullPage: true });

    // A group's members by name, here and on the platform.
    await page.locator('#related-groups').getByRole('link', { name: 'Operations' }).click();
    await page.locator('#related-users').getByRole('link', { name: 'user1@example.com' }).waitFor();
    await expect.poll(() => verdict.innerText()).toMatch(/^The platform matches the desired state\./);
    const members = page.getByRole('table', { name: /^Members: 20 desired, 20 on the platform; 0 missing/ });
    await members.getByRole('row', { name: /^user1@example\.com u1 / }).waitFor();

    // The platform down: a clear message, and nothing else changes.
    await fixture.target.faults.setOutage('refuse');
    try {
      await page.getByRole('button', { name: 'Read the platform again' }).click();
      await page
        .locator('#platform-copy [role="alert"]')
        .filter({ hasText: /^The platform could not be read: GET \/Groups\/:id failed/ })
        .waitFor({ timeout: 20_000 });
    } finally {
      await fixture.target.faults.setOutage(null);
    }
    // The browser reports the 502 it was answered; that was the point.
    browser.problems.splice(
      0,
      browser.problems.length,
      ...browser.problems.filter((p) => !/status of 502/.test(p)),
    );
    await page.getByRole('button', { name: 'Read the platform again' }).click();
    await expect.poll(() => verdict.innerText()).toMatch(/^The platform matches the desired state\./);
  }, 60_000);

  it('draws a chart of recent syncs, their duration and changes, each bar opening its sync', async () => {
    await nav().getByRole('link', { name: 'Syncs' }).click();
    // A dry run too (drawn lighter).
    await page.getByRole('button', { name: 'Start dry run' }).click();
    await page.locator('#sync-state', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    await nav().getByRole('link', { name: 'Syncs' }).click();
    const chart = page.locator('#sync-chart svg');
    await chart.waitFor();
    const ended = await page
      .getByRole('table', { name: 'Recent syncs, newest first' })
      .getByRole('row')
      .count();
    // Two panels, a bar per sync that ended or is held, in each.
    expect(await chart.locator('.duration rect.bar').count()).toBe(ended - 1);
    expect(await chart.locator('.changes rect.bar').count()).toBe(ended - 1);
    expect(await chart.locator('title').first().textContent()).toMatch(
      /^Duration and changes of the last \d+ syncs/,
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'syncs.png'), fullPage: true });
    const newest = chart.locator('.changes a').last();
    const href = await newest.getAttribute('href');
    await newest.click();
    await page.waitForURL(new RegExp(`${href}$`));
    await page.locator('#sync-state').waitFor();
  });

  it("shows a link-only run's counts and lists, and what a sync leaves to other inputs", async () => {
    await fixture.engine.bridge.store.api
      .as('scim')
      .upsertUser({ id: 'scim-e2e', userName: 'pushed@example.com', active: true });
    const stranger = fixture.target.insertUser({ userName: 'stranger@example.com' });
    const jobId = await startSync(fixture, { snapshot: snapshotOf(42), linkOnly: true });
    const record = await settledSync(fixture, jobId);
    const link = (record.plan as { linkOnly: Record<string, number> }).linkOnly;
    expect(link).toMatchObject({ linked: 42, unmatchedInSource: 2, ambiguous: 0 });
    await page.evaluate((id) => (location.hash = '#/syncs/' + id), jobId);
    await page.locator('#sync-state', { hasText: 'completed' }).waitFor();
    const counts = page.getByRole('table', { name: 'Link-only, by kind' });
    await counts.getByRole('row', { name: `total ${link.linked} 2 ${link.unmatchedOnPlatform} 0` }).waitFor();
    expect(await page.locator('#owned-elsewhere').innerText()).toContain('scim: 1 user, 0 groups');
    const unmatched = page.locator('#changes-unmatchedInSource');
    await unmatched.getByRole('row', { name: 'user user40@example.com u40 —' }).waitFor();
    await page
      .locator('#changes-unmatchedOnPlatform')
      .getByRole('row', { name: `user stranger@example.com ${stranger.id}` })
      .waitFor();
    await page
      .locator('#changes-ownedElsewhere')
      .getByRole('row', { name: 'user pushed@example.com scim-e2e scim' })
      .waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'sync-link-only.png'), fullPage: true });
    // The list of syncs says each list by kind: the 2 unmatched are users, not users and groups.
    await nav().getByRole('link', { name: 'Syncs' }).click();
    await page
      .getByRole('table', { name: 'Recent syncs, newest first' })
      .getByRole('row')
      .filter({ hasText: 'linked: 40 users and 2 groups; unmatched in the source: 2 users;' })
      .waitFor();
  });

  it('talked to the bridge only, never put the token in a URL, and raised no script error', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    expectCleanSession(browser, fixture.engine.bridge.http.url);
  });
});

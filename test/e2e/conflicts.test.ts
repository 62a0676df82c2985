import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startAdminFixture, type AdminFixture } from '../integration/admin-fixture.js';

// Real: a headless Chromium (Debian's, driven by playwright-core) using the dashboard the bridge
// serves at /admin/ui, the bridge's admin API, Redis, BullMQ workers, the reference target. The
// conflicts come from the inputs' own writes (the desired-state API as SCIM push and as events).
// Set up as test/e2e/dashboard.test.ts is.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url))
  : mkdtempSync(join(tmpdir(), 'scim-bridge-screenshots-'));
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('the Conflicts view in Chromium', () => {
  let fixture: AdminFixture;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const problems: string[] = [];
  let ambiguousTarget = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `No Chromium at ${CHROMIUM}: apt-get install chromium (as npm test does) or set CHROMIUM_PATH`,
      );
    }
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
    profile = mkdtempSync(join(tmpdir(), 'scim-bridge-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 900 },
      baseURL: fixture.engine.bridge.http.url,
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await fixture?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const table = () => page.getByRole('table', { name: 'Conflicts, most recently seen first' });
  const live = () => page.locator('#live');

  it('lists both claimants by name and owner, the platform account and when they were seen', async () => {
    await page.goto('/admin/ui');
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
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
    expect(problems).toEqual([]);
  });
});

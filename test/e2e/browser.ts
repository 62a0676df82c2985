import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ADMIN_TOKEN } from '../integration/admin-fixture.js';

/**
 * What the browser tests share: a headless Chromium (Debian's, driven by playwright-core) with a
 * fresh profile, recording every request it sends and every script error, and where screenshots go.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// The README's screenshots are refreshed with UPDATE_SCREENSHOTS=1; otherwise they go to a temporary
// directory, so that running the tests never changes tracked files.
export const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
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

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Every URL the page (and pages it opened, once added) requested. */
  requests: string[];
  /** Script errors and console errors other than a refused token (401). */
  problems: string[];
  close(): Promise<void>;
}

export async function openBrowser(baseURL: string): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: apt-get install chromium (as npm test does) or set CHROMIUM_PATH`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'scim-bridge-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    baseURL,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/401/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    page,
    requests,
    problems,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in with the admin token and waits for the overview. */
export async function signIn(page: Page): Promise<void> {
  await page.goto('/admin/ui');
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

/** The page talked to the bridge only, never put the token in a URL, and raised no script error. */
export function expectCleanSession(browser: TestBrowser, bridgeUrl: string): void {
  const origin = new URL(bridgeUrl).origin;
  expect(browser.requests.length).toBeGreaterThan(10);
  expect(browser.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual(
    [],
  );
  expect(browser.requests.filter((url) => url.includes(ADMIN_TOKEN))).toEqual([]);
  expect(browser.problems).toEqual([]);
}

import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { extname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, auth, startAdminFixture, type AdminFixture } from './admin-fixture.js';

// Real: the bridge's HTTP surface as main.ts wires it (the dashboard's router in front of the admin
// API), Redis, the reference target; the dashboard's files as they are on disk in src/admin/ui/public/.
const PUBLIC = new URL('../../src/admin/ui/public/', import.meta.url);
const FILES = readdirSync(PUBLIC).sort();
const TYPES: Record<string, RegExp> = {
  '.html': /^text\/html; charset=utf-8$/,
  '.css': /^text\/css; charset=utf-8$/,
  '.js': /^text\/javascript; charset=utf-8$/,
};
const urlOf = (name: string) => (name === 'index.html' ? '/admin/ui/' : `/admin/ui/assets/${name}`);

/** A GET with the path sent byte for byte: no client resolves `..` or decodes `%2F` on the way. */
function rawGet(base: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(new URL(base), { path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('dashboard files at /admin/ui', () => {
  let fixture: AdminFixture;

  beforeAll(async () => {
    fixture = await startAdminFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('serves the dashboard shell without a token: static files only, under a strict CSP', async () => {
    const redirect = await fixture.http().get('/admin/ui').expect(301);
    expect(redirect.headers.location).toBe('ui/');
    const page = await fixture.http().get('/admin/ui/').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.text).not.toContain(ADMIN_TOKEN);
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const script = await fixture.http().get('/admin/ui/assets/app.js').expect(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    const again = await fixture
      .http()
      .get('/admin/ui/assets/app.js')
      .set('If-None-Match', String(script.headers.etag));
    expect(again.status).toBe(304);
    // Anything else under /admin/ui is the admin API's: no token, no answer.
    await fixture.http().get('/admin/ui/assets/secret.json').expect(401);
    await fixture.http().get('/admin/ui/assets/secret.json').set(auth).expect(404);
  });

  it('serves every file of public/ as it is on disk, with its type and the same headers', async () => {
    expect(FILES).toEqual(expect.arrayContaining(['index.html', 'style.css', 'app.js', 'api.js', 'dom.js']));
    const page = await fixture.http().get('/admin/ui/').expect(200);
    const security = [
      'content-security-policy',
      'x-content-type-options',
      'x-frame-options',
      'referrer-policy',
      'cross-origin-opener-policy',
      'cross-origin-resource-policy',
      'cache-control',
    ];
    const expected = Object.fromEntries(security.map((name) => [name, page.headers[name]]));
    expect(expected['x-content-type-options']).toBe('nosniff');
    expect(expected['cache-control']).toBe('no-cache');
    for (const name of FILES) {
      const res = await fixture.http().get(urlOf(name)).buffer(true).expect(200);
      const type = TYPES[extname(name)];
      expect(type, `a type for ${name}`).toBeDefined();
      expect(res.headers['content-type'], name).toMatch(type as RegExp);
      expect(Object.fromEntries(security.map((h) => [h, res.headers[h]])), name).toEqual(expected);
      expect(res.text, name).toBe(readFileSync(new URL(name, PUBLIC), 'utf8'));
      const etag = String(res.headers.etag);
      expect(etag, name).toMatch(/^"[\w-]+"$/);
      const again = await fixture.http().get(urlOf(name)).set('If-None-Match', etag);
      expect(again.status, name).toBe(304);
      expect(again.headers['content-security-policy'], name).toBe(expected['content-security-policy']);
    }
  });

  it('loads only modules it serves: every ./x.js import and every asset the page names exists', () => {
    const html = readFileSync(new URL('index.html', PUBLIC), 'utf8');
    const named = [...html.matchAll(/(?:src|href)="assets\/([^"]+)"/g)].map((m) => m[1]);
    const imported = FILES.filter((name) => name.endsWith('.js')).flatMap((name) =>
      [...readFileSync(new URL(name, PUBLIC), 'utf8').matchAll(/from '\.\/([^']+)'/g)].map((m) => m[1]),
    );
    expect(named).toEqual(expect.arrayContaining(['style.css', 'app.js']));
    for (const name of [...named, ...imported]) expect(FILES, name).toContain(name);
  });

  it('reaches no other file: any other name, `..` and encoded slashes included, is the admin API’s', async () => {
    const base = fixture.engine.bridge.http.url;
    const paths = [
      '/admin/ui/assets/secret.json',
      '/admin/ui/assets/tsconfig.json',
      '/admin/ui/assets/admin-ui.router.ts',
      '/admin/ui/assets/..%2Ftsconfig.json',
      '/admin/ui/assets/..%2Fadmin-ui.router.ts',
      '/admin/ui/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json',
      '/admin/ui/assets/..%5C..%5C..%5C..%5Cpackage.json',
      '/admin/ui/assets/../tsconfig.json',
      '/admin/ui/assets/../../../../package.json',
      '/admin/ui/assets/%2Fetc%2Fpasswd',
      '/admin/ui/assets/..',
      '/admin/ui/assets/.',
      '/admin/ui/assets/app.js%00',
      '/admin/ui/assets/__proto__',
      '/admin/ui/assets/constructor',
      '/admin/ui/public/app.js',
      '/admin/ui/app.js',
    ];
    for (const path of paths) {
      const anonymous = await rawGet(base, path);
      expect(anonymous.status, path).toBe(401);
      expect(JSON.parse(anonymous.body).error.code, path).toBe('unauthorized');
      const signedIn = await rawGet(base, path, auth);
      expect(signedIn.status, path).toBe(404);
      expect(JSON.parse(signedIn.body).error.code, path).toBe('not_found');
    }
  });
});

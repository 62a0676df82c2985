import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router, type Response } from 'express';
import { BridgeError } from '../../domain/errors.js';

/**
 * The web dashboard at /admin/ui: a static page and its scripts, served by the bridge itself. The
 * files hold no data and no secret, so they are served without the token (the page is where one
 * signs in); everything they show comes from the admin API, which refuses requests without it.
 * The token stays in the tab's sessionStorage and travels only in the Authorization header.
 *
 * The Content-Security-Policy allows nothing but this origin: no inline script or style, no other
 * host (nothing outside the machine can be reached anyway), no framing.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

/**
 * The dashboard's files: src/admin/ui/public/ when the sources run (tests, tsx), the copy that
 * tools/build.mjs puts beside the compiled router (dist/admin/ui/public/) when the build runs.
 */
const UI_DIR = new URL('./public/', import.meta.url);

/** The page; every other file is under assets/. */
const PAGE = 'index.html';

/** Served by extension; a file of another kind in the folder is not served. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

interface UiFile {
  type: string;
  body: Buffer;
  etag: string;
}

/**
 * Reads the dashboard's files once, at start-up. Requests are answered from this map only, by exact
 * name: nothing else on the disk can be reached, whatever the path says (no `..`, no sub-folder).
 */
function readUiFiles(dir: URL): ReadonlyMap<string, UiFile> {
  const files = new Map<string, UiFile>();
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (cause) {
    throw new BridgeError('internal', `The dashboard's files are missing at ${fileURLToPath(dir)}`, {
      cause,
    });
  }
  for (const entry of entries) {
    const type = TYPES[extname(entry.name)];
    if (!entry.isFile() || !type) continue;
    const body = readFileSync(new URL(entry.name, dir));
    const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
    files.set(entry.name, { type, body, etag });
  }
  return files;
}

export function adminUiRouter(token: () => string): Router {
  const files = readUiFiles(UI_DIR);
  const page = files.get(PAGE);
  if (!page) throw new BridgeError('internal', `The dashboard has no ${PAGE} in ${fileURLToPath(UI_DIR)}`);
  const router = Router();
  const send = (res: Response, file: UiFile, ifNoneMatch: string | undefined) => {
    res.set({ ...HEADERS, ETag: file.etag, 'Content-Type': file.type });
    if (ifNoneMatch === file.etag) return void res.status(304).end();
    res.send(file.body);
  };
  router.use((_req, _res, next) => {
    if (token() === '')
      return next(new BridgeError('not_enabled', 'The admin UI is not enabled: set ADMIN_TOKEN'));
    next();
  });
  router.get('/', (req, res) => {
    // Relative asset and API URLs need the trailing slash; a relative redirect keeps any path prefix.
    if (!req.originalUrl.split('?')[0]?.endsWith('/')) return void res.redirect(301, 'ui/');
    send(res, page, req.headers['if-none-match']);
  });
  router.get('/assets/:name', (req, res, next) => {
    const file = req.params.name === PAGE ? undefined : files.get(req.params.name);
    // Not one of the dashboard's files: left to the admin API behind the token (401, then 404).
    if (!file) return next();
    send(res, file, req.headers['if-none-match']);
  });
  return router;
}

import { createHash } from 'node:crypto';
import { Router, type Response } from 'express';
import { BridgeError } from '../../domain/errors.js';
import { UI_ASSETS, UI_PAGE, type UiAsset } from './ui-assets.js';

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

export function adminUiRouter(token: () => string): Router {
  const router = Router();
  const etags = new Map<UiAsset, string>();
  const send = (res: Response, asset: UiAsset, ifNoneMatch: string | undefined) => {
    let etag = etags.get(asset);
    if (!etag) etags.set(asset, (etag = `"${createHash('sha256').update(asset.body).digest('base64url')}"`));
    res.set({ ...HEADERS, ETag: etag, 'Content-Type': asset.type });
    if (ifNoneMatch === etag) return void res.status(304).end();
    res.send(asset.body);
  };
  router.use((_req, _res, next) => {
    if (token() === '')
      return next(new BridgeError('not_enabled', 'The admin UI is not enabled: set ADMIN_TOKEN'));
    next();
  });
  router.get('/', (req, res) => {
    // Relative asset and API URLs need the trailing slash; a relative redirect keeps any path prefix.
    if (!req.originalUrl.split('?')[0]?.endsWith('/')) return void res.redirect(301, 'ui/');
    send(res, UI_PAGE, req.headers['if-none-match']);
  });
  router.get('/assets/:name', (req, res, next) => {
    const asset = Object.hasOwn(UI_ASSETS, req.params.name) ? UI_ASSETS[req.params.name] : undefined;
    // Not one of the dashboard's files: left to the admin API behind the token (401, then 404).
    if (!asset) return next();
    send(res, asset, req.headers['if-none-match']);
  });
  return router;
}

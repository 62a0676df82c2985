import { API_JS } from './assets/api.asset.js';
import { APP_JS } from './assets/app.asset.js';
import { DOM_JS } from './assets/dom.asset.js';
import { FAILURES_JS } from './assets/failures.asset.js';
import { IDENTITY_JS } from './assets/identity.asset.js';
import { INDEX_HTML } from './assets/index-html.asset.js';
import { OVERVIEW_JS } from './assets/overview.asset.js';
import { STYLE_CSS } from './assets/style.asset.js';
import { SYNCS_JS } from './assets/syncs.asset.js';

/**
 * The dashboard's files, kept as TypeScript string modules so that they travel with the compiled
 * code (dist/, the container image, the npm package) with no copy step and are never read from
 * disk. Served by admin-ui.router.ts.
 */
export interface UiAsset {
  type: string;
  body: string;
}

const js = (body: string): UiAsset => ({ type: 'text/javascript; charset=utf-8', body });

export const UI_PAGE: UiAsset = { type: 'text/html; charset=utf-8', body: INDEX_HTML };

export const UI_ASSETS: Readonly<Record<string, UiAsset>> = {
  'style.css': { type: 'text/css; charset=utf-8', body: STYLE_CSS },
  'api.js': js(API_JS),
  'app.js': js(APP_JS),
  'dom.js': js(DOM_JS),
  'failures.js': js(FAILURES_JS),
  'identity.js': js(IDENTITY_JS),
  'overview.js': js(OVERVIEW_JS),
  'syncs.js': js(SYNCS_JS),
};

// @ts-check
/** Browser module: sign-in, the hash router, polling, and the health banner. */
import { adminUrl, api, ApiError, session, whenUnauthorized } from './api.js';
import { errorBox, fill, h, messageOf } from './dom.js';
import { conflictsView } from './conflicts.js';
import { failuresView } from './failures.js';
import { identityView } from './identity.js';
import { overviewView } from './overview.js';
import { previewView } from './preview.js';
import { syncDetailView, syncsView } from './syncs.js';

/** @import { Status } from '../api-types.js' */
/** @import { Child, View } from './dom.js' */

/** @param {string} id one of index.html's elements */
const $ = function (id) {
  const el = document.getElementById(id);
  if (!el) throw new Error('The page has no #' + id);
  return el;
};
const main = $('main');
/** @type {View | null} */
let view = null;
/** @type {number | undefined} */
let timer;
/** @type {number | undefined} */
let bannerTimer;
let generation = 0;

/** @param {string} [message] */
function showSignIn(message) {
  stop();
  $('app').hidden = true;
  $('signin').hidden = false;
  const error = $('signin-error');
  error.hidden = !message;
  error.textContent = message || '';
  $('token').focus();
}

async function showApp() {
  $('signin').hidden = true;
  $('app').hidden = false;
  await banner();
  bannerTimer = setInterval(banner, 5000);
  await route();
}

function stop() {
  clearInterval(timer);
  clearInterval(bannerTimer);
  timer = undefined;
  bannerTimer = undefined;
  leaveView();
}

/** Lets the view shown close what it keeps open (a progress stream) before another replaces it. */
function leaveView() {
  if (view && view.stop) view.stop();
  view = null;
}

let bannerText = '';

/** The health banner is a live region: it is redrawn (and announced) only when it changes. */
async function banner() {
  const el = $('banner');
  let tone = 'bad';
  let state = 'unknown';
  /** @type {Child} */
  let content;
  try {
    /** @type {Status} */
    const status = await api('GET', 'status');
    const t = status.target;
    const since = t.since ? ' since ' + new Date(t.since).toLocaleString() : '';
    const paused = t.pausedForMs > 0 ? '; processing paused, retrying with back-off' : '';
    const text =
      {
        reachable: 'Target reachable',
        'rate-limited': 'Target is rate-limiting the bridge',
        'auth-failed': 'Target refuses the SCIM token (401/403): processing is paused, work is kept',
        unavailable: 'Target unavailable (5xx or network errors): work is kept queued',
      }[t.state] || t.state;
    state = t.state;
    tone = t.state === 'reachable' ? 'ok' : t.state === 'rate-limited' ? 'warn' : 'bad';
    const failures = status.failures === 1 ? '1 failure' : status.failures + ' failures';
    const held =
      status.activeSync && status.activeSync.state === 'awaiting-approval' ? status.activeSync : null;
    if (held && tone === 'ok') tone = 'warn';
    content = [
      h('strong', null, text),
      since + paused + (t.detail && t.state !== 'reachable' ? ' — ' + t.detail : ''),
      status.failures > 0 ? [' · ', h('a', { href: '#/failures' }, failures)] : null,
      held
        ? [
            ' · ',
            h(
              'a',
              { href: '#/syncs/' + encodeURIComponent(held.jobId), id: 'banner-held' },
              'Sync ' + held.jobId + ' is held for approval: nothing of it is applied until you approve it',
            ),
          ]
        : null,
    ];
  } catch (error) {
    content = ['Status unavailable: ' + messageOf(error)];
  }
  const probe = h('div', null, content);
  if (probe.textContent === bannerText && el.dataset.state === state && el.className === 'banner ' + tone)
    return;
  bannerText = probe.textContent;
  el.className = 'banner ' + tone;
  el.dataset.state = state;
  fill(el, content);
}

function parts() {
  const hash = location.hash;
  if (hash && hash.slice(0, 2) !== '#/') return null;
  return hash
    .slice(2)
    .split('/')
    .map(function (part) {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
}

async function route() {
  const p = parts();
  if (!p) return;
  const name = p[0] || 'overview';
  const mine = ++generation;
  clearInterval(timer);
  timer = undefined;
  leaveView();
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.getAttribute('data-nav') === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  try {
    if (name === 'syncs' && p[1]) view = await syncDetailView(main, p[1]);
    else if (name === 'syncs') view = await syncsView(main);
    else if (name === 'failures') view = await failuresView(main);
    else if (name === 'conflicts') view = await conflictsView(main);
    else if (name === 'preview') view = await previewView(main, p[1]);
    else if (name === 'identity') view = await identityView(main, p[1], p.slice(2).join('/'));
    else view = await overviewView(main);
  } catch (error) {
    if (mine === generation) fill(main, h('h1', { tabindex: '-1' }, 'Something went wrong'), errorBox(error));
    view = null;
  }
  if (mine !== generation) return;
  const title = main.querySelector('h1');
  document.title = (title ? title.textContent + ' · ' : '') + 'scim-bridge admin';
  if (title) title.focus();
  if (view && view.refresh && view.every) {
    const refresh = view.refresh;
    timer = setInterval(function () {
      if (document.hidden || mine !== generation) return;
      refresh().catch(function () {});
    }, view.every);
  }
}

$('signin-form').addEventListener('submit', async function (event) {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($('token'));
  const token = input.value.trim();
  input.value = '';
  if (!token) return showSignIn('Enter the admin token.');
  session.set(token);
  try {
    await api('GET', 'status');
  } catch (error) {
    session.clear();
    return showSignIn(
      error instanceof ApiError && error.status === 401 ? 'The bridge refused this token.' : messageOf(error),
    );
  }
  await showApp();
});

$('signout').addEventListener('click', function () {
  session.clear();
  fetch(adminUrl('queues/session'), { method: 'DELETE', credentials: 'same-origin' }).catch(function () {});
  showSignIn('Signed out.');
});

whenUnauthorized(function () {
  session.clear();
  showSignIn('The bridge refused the token; sign in again.');
});

window.addEventListener('hashchange', function () {
  if (!$('app').hidden) route();
});

if (session.get()) showApp();
else showSignIn();

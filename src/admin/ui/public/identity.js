// @ts-check
/**
 * Browser module: look up one identity and show its trace (state, last error), its desired state
 * beside the platform's copy, its groups or members by name, and its history.
 */
import { api, ApiError, enc } from './api.js';
import { named } from './changes.js';
import { platformSection } from './compare.js';
import { announce, badge, fill, h, heading, kv, table, time } from './dom.js';

/** @import { HistoryEntry, IdentityTrace, StoredError } from '../api-types.js' */
/** @import { Child, View } from './dom.js' */

/**
 * @param {HTMLElement} container
 * @param {string | undefined} kind 'user' or 'group' (anything else: user)
 * @param {string} key a source id, userName or displayName; empty: the form only
 * @returns {Promise<View>}
 */
export async function identityView(container, kind, key) {
  const body = h('div');
  const top = h('div');
  const platform = h('div');
  const bottom = h('div');
  let platformRead = '';
  fill(container, heading('Identity look-up'), lookUpForm(kind, key), body);
  if (!key) return {};
  /** @returns {Promise<IdentityTrace | undefined>} */
  async function refresh() {
    try {
      /** @type {IdentityTrace} */
      const trace = await api(
        'GET',
        'identities/' + (kind === 'group' ? 'groups' : 'users') + '/' + enc(key),
      );
      if (!body.contains(platform)) fill(body, top, platform, bottom);
      // The platform is read when the look-up opens and after each run (and on demand), not at each
      // redraw of the trace.
      const read = [trace.id, trace.targetId, trace.lastAttemptAt].join('|');
      if (read !== platformRead) fill(platform, platformSection(trace.kind, trace.id));
      platformRead = read;
      fill(top, render(trace, refresh));
      fill(bottom, related(trace), historySection(trace));
      return trace;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404)
        fill(body, h('p', { role: 'alert' }, 'No ' + kind + ' with id or name "' + key + '".'));
      else throw error;
    }
  }
  await refresh();
  return {};
}

/**
 * The kind and key to look up; submitting opens the look-up's own address.
 *
 * @param {string | undefined} kind
 * @param {string} key
 */
function lookUpForm(kind, key) {
  const kindSelect = h(
    'select',
    { id: 'identity-kind' },
    h('option', { value: 'user' }, 'user'),
    h('option', { value: 'group' }, 'group'),
  );
  kindSelect.value = kind === 'group' ? 'group' : 'user';
  const keyInput = h('input', {
    id: 'identity-key',
    type: 'text',
    required: true,
    spellcheck: 'false',
    value: key || '',
  });
  return h(
    'form',
    {
      class: 'row',
      onsubmit: function (e) {
        e.preventDefault();
        location.hash = '#/identity/' + kindSelect.value + '/' + enc(keyInput.value.trim());
      },
    },
    h('div', { class: 'field' }, h('label', { for: 'identity-kind' }, 'Kind'), kindSelect),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'identity-key' }, 'Source id, userName or displayName'),
      keyInput,
    ),
    h('button', { type: 'submit' }, 'Look up'),
  );
}

/**
 * @param {IdentityTrace} trace
 * @param {() => Promise<IdentityTrace | undefined>} refresh
 * @returns {Child[]}
 */
function render(trace, refresh) {
  const retry = h(
    'button',
    {
      type: 'button',
      onclick: async function () {
        await api('POST', 'failures/retry', { keys: [trace.key] });
        announce('Queued ' + trace.key + ' for a new run');
        // Follow the run: until it has been attempted again and is no longer pending or retrying.
        for (let i = 0; i < 30; i++) {
          await new Promise(function (resolve) {
            setTimeout(resolve, 1000);
          });
          const now = await refresh();
          if (
            !now ||
            (now.lastAttemptAt !== trace.lastAttemptAt && ['pending', 'retrying'].indexOf(now.status) < 0)
          )
            break;
        }
      },
    },
    trace.status === 'failed' ? 'Retry' : 'Reconcile again',
  );
  return [
    h('h2', null, trace.key, ' ', h('span', { id: 'identity-status' }, badge(trace.status))),
    kv([
      ['Found by', trace.matchedBy],
      ['Target id', trace.targetId || '—'],
      ['Managed by the bridge', trace.managed ? 'yes' : 'no'],
      ['Last applied', time(trace.lastAppliedAt)],
      ['Last attempt', time(trace.lastAttemptAt)],
      ['Last result', trace.lastResult || '—'],
      ['Change pending since', time(trace.pendingSince)],
      ['Failed since', time(trace.failedAt)],
      ['Held by sync', trace.heldBy || '—'],
    ]),
    h('div', { class: 'row' }, retry),
    trace.lastError ? lastError(trace.lastError) : null,
  ];
}

/**
 * A user's groups, a group's members: by name, beside their ids; the desired state as stored.
 *
 * @param {IdentityTrace} trace
 * @returns {Child[]}
 */
function related(trace) {
  const names = trace.names || {};
  const desired = /** @type {{ members?: string[] } | null} */ (trace.desired);
  const ids = trace.groups || (desired && desired.members) || null;
  const other = trace.groups ? 'group' : 'user';
  return [
    ids ? relatedList(trace.groups ? 'Groups' : 'Members', other, ids, names) : null,
    h(
      'details',
      { id: 'desired-json' },
      h('summary', null, 'The desired state as stored (JSON)'),
      trace.desired
        ? h('pre', null, JSON.stringify(trace.desired, null, 2))
        : h('p', { class: 'muted' }, 'Should not exist (deleted at the source).'),
    ),
  ];
}

/** Related identities listed at once; more on demand. */
const SHOWN = 100;

/**
 * @param {string} title
 * @param {'user' | 'group'} kind
 * @param {string[]} ids
 * @param {Record<string, string>} names
 */
function relatedList(title, kind, ids, names) {
  const list = h('ul', { class: 'related', id: 'related-' + kind + 's' });
  const more = h('div');
  let shown = 0;
  const next = function () {
    const page = ids.slice(shown, shown + SHOWN);
    list.append(
      ...page.map(function (id) {
        return h('li', null, named(kind, id, names[id]));
      }),
    );
    shown += page.length;
    fill(
      more,
      shown < ids.length
        ? h(
            'button',
            { type: 'button', class: 'secondary', onclick: next },
            'Show ' + Math.min(SHOWN, ids.length - shown) + ' more of ' + (ids.length - shown),
          )
        : null,
    );
  };
  next();
  return [
    h('h2', null, title + ' (' + ids.length + ')'),
    ids.length ? [list, more] : h('p', { class: 'muted' }, kind === 'group' ? 'In no group.' : 'No member.'),
  ];
}

/** @param {IdentityTrace} trace */
function historySection(trace) {
  return [
    h('h2', null, 'History'),
    table(
      'Signals, decisions, requests and errors, newest first',
      ['when', 'type', 'what'],
      trace.history.map(function (e) {
        return [time(e.at), badge(e.type === 'error' ? 'failed' : 'info', e.type), describe(e)];
      }),
      'No history recorded.',
    ),
  ];
}

/** @param {StoredError} error */
function lastError(error) {
  return h(
    'div',
    { class: 'error', role: 'alert', id: 'last-error' },
    h('strong', null, 'Last error: ' + error.code + (error.status ? ' (HTTP ' + error.status + ')' : '')),
    h('div', null, error.message),
    error.detail ? h('div', null, 'Target detail: ', h('code', null, error.detail)) : null,
    h('div', null, 'At ', time(error.at)),
  );
}

/**
 * @param {HistoryEntry} entry
 * @returns {Child}
 */
function describe(entry) {
  /** @type {Record<string, unknown>} */
  const rest = Object.assign({}, entry);
  delete rest.at;
  delete rest.type;
  if (entry.type === 'request') {
    return h(
      'code',
      null,
      entry.method +
        ' ' +
        entry.path +
        ' → ' +
        entry.status +
        (entry.durationMs !== undefined ? ' (' + Math.round(Number(entry.durationMs)) + ' ms)' : ''),
    );
  }
  if (entry.type === 'signal')
    return 'from ' + entry.source + (entry.detail ? ': ' + JSON.stringify(entry.detail) : '');
  if (entry.type === 'decision') {
    delete rest.decision;
    return [
      h('strong', null, String(entry.decision)),
      Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '',
    ];
  }
  if (entry.type === 'error') {
    const detail =
      entry.detail && String(entry.message).indexOf(String(entry.detail)) < 0 ? ' — ' + entry.detail : '';
    return entry.code + ': ' + entry.message + detail;
  }
  return JSON.stringify(rest);
}

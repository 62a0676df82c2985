// @ts-check
/** Browser module: the conflict inbox — identities two inputs claim, linked or ignored here. */
import { api, enc } from './api.js';
import { announce, errorBox, fill, h, heading, time } from './dom.js';

/** @import { View } from './dom.js' */

/** @import { Conflict, ConflictList, ConflictParty, ConflictResolveBody } from '../api-types.js' */

/** @type {Record<Conflict['kind'], string>} */
const KIND = {
  'same-id': 'same id from two inputs',
  account: 'same platform account',
  ambiguous: 'two platform accounts fit',
};

/**
 * @param {Conflict['identityKind']} kind
 * @param {ConflictParty} party
 */
function who(kind, party) {
  return h(
    'span',
    null,
    h('a', { href: '#/identity/' + kind + '/' + enc(party.id) }, party.name || party.id),
    ' ',
    h('span', { class: 'muted' }, '(' + (party.owner || 'no owner') + ')'),
  );
}

/** @param {Conflict} c */
function accountCell(c) {
  if (c.account.candidates && c.account.candidates.length) {
    return c.account.candidates.map(function (candidate, i) {
      const named = candidate.name ? ': ' + candidate.name : '';
      return [i > 0 ? ' or ' : '', candidate.targetId + ' (' + candidate.by + named + ')'];
    });
  }
  return c.account.targetId ? c.account.targetId + ' (by ' + c.account.by + ')' : 'none yet';
}

/** @typedef {(c: Conflict, action: 'link' | 'ignore', targetId?: string) => void} OnResolve */

/**
 * @param {HTMLElement} container
 * @returns {Promise<View>}
 */
export async function conflictsView(container) {
  const status = h(
    'select',
    { id: 'conflict-status' },
    h('option', { value: 'open' }, 'open'),
    h('option', { value: 'ignored' }, 'ignored'),
    h('option', { value: 'all' }, 'all'),
  );
  const message = h('div');
  const list = h('div');
  /** @type {OnResolve} */
  const onResolve = function (c, action, targetId) {
    resolveConflict(c, action, targetId, message, load);
  };
  async function load() {
    /** @type {ConflictList} */
    const page = await api('GET', 'conflicts?limit=200&status=' + status.value);
    fill(list, conflictList(page, status.value, onResolve));
  }
  fill(
    container,
    heading('Conflicts'),
    h(
      'p',
      { class: 'muted' },
      'Identities two inputs claim. The claimant is parked (never written to the platform) until you ' +
        "resolve it: Link makes the claimant's input the owner of the platform account; Ignore keeps " +
        'it parked and stops reporting it.',
    ),
    h(
      'form',
      {
        class: 'row',
        onsubmit: function (e) {
          e.preventDefault();
          load();
        },
      },
      h('div', { class: 'field' }, h('label', { for: 'conflict-status' }, 'Status'), status),
      h('button', { type: 'submit', class: 'secondary' }, 'Show'),
    ),
    message,
    list,
  );
  await load();
  return { refresh: load, every: 10000 };
}

/**
 * Links or ignores the conflict, says what became of the claimant, and reloads the list.
 *
 * @param {Conflict} c
 * @param {'link' | 'ignore'} action
 * @param {string | undefined} targetId
 * @param {HTMLElement} message
 * @param {() => Promise<void>} reload
 */
async function resolveConflict(c, action, targetId, message, reload) {
  try {
    /** @type {ConflictResolveBody} */
    const body = { action: action };
    if (targetId) body.targetId = targetId;
    await api('POST', 'conflicts/' + enc(c.id) + '/resolve', body);
    const name = c.claimant.name || c.claimant.id;
    const text =
      action === 'link'
        ? 'Linked: ' + name + ' (' + c.claimant.owner + ') now owns the platform account.'
        : 'Ignored: ' + name + ' stays parked and is no longer reported.';
    announce(text);
    fill(message, h('p', { role: 'status' }, text));
    await reload();
  } catch (error) {
    fill(message, errorBox(error));
  }
}

/**
 * The buttons that resolve an open or ignored conflict: Link (an ambiguous one: one per candidate
 * account), and Ignore while it is open.
 *
 * @param {Conflict} c
 * @param {OnResolve} onResolve
 */
function actions(c, onResolve) {
  if (c.status !== 'open' && c.status !== 'ignored') return h('span', { class: 'muted' }, c.status);
  const name = c.claimant.name || c.claimant.id;
  /**
   * @param {string} label the accessible name, starting with the text shown (the claimant's name is added)
   * @param {'link' | 'ignore'} action
   * @param {string} [targetId]
   * @param {string} [text] what the button shows, when shorter than the label
   */
  const button = function (label, action, targetId, text) {
    return h(
      'button',
      {
        type: 'button',
        class: action === 'ignore' ? 'secondary' : null,
        'aria-label': label + ' — ' + name,
        'data-focus': action + ':' + c.id + ':' + (targetId || ''),
        onclick: function () {
          onResolve(c, action, targetId);
        },
      },
      text || label,
    );
  };
  const links =
    c.kind === 'ambiguous'
      ? (c.account.candidates || []).map(function (candidate) {
          const text = 'Link the ' + candidate.by + ' match';
          return button(text + ', ' + candidate.targetId, 'link', candidate.targetId, text);
        })
      : [button('Link', 'link')];
  return h('div', { class: 'row' }, links, c.status === 'open' ? button('Ignore', 'ignore') : null);
}

/**
 * How many there are of the status shown, and the table of them.
 *
 * @param {ConflictList} page
 * @param {string} status
 * @param {OnResolve} onResolve
 */
function conflictList(page, status, onResolve) {
  return [
    h('p', null, page.total + ' ' + status + ' conflict' + (page.total === 1 ? '' : 's') + '.'),
    page.items.length === 0
      ? h('p', { class: 'muted' }, 'No conflicts.')
      : h(
          'table',
          null,
          h('caption', null, 'Conflicts, most recently seen first'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['kind', 'claimant (parked)', 'holder', 'platform account', 'first seen', 'last seen', ''].map(
                function (n) {
                  return h(
                    'th',
                    { scope: 'col' },
                    n === '' ? h('span', { class: 'visually-hidden' }, 'resolve') : n,
                  );
                },
              ),
            ),
          ),
          h(
            'tbody',
            null,
            page.items.map(function (c) {
              return conflictRow(c, onResolve);
            }),
          ),
        ),
  ];
}

/**
 * @param {Conflict} c
 * @param {OnResolve} onResolve
 */
function conflictRow(c, onResolve) {
  return h(
    'tr',
    null,
    h('td', null, KIND[c.kind] || c.kind),
    h('td', null, who(c.identityKind, c.claimant)),
    h('td', null, c.holder ? who(c.identityKind, c.holder) : '—'),
    h('td', null, accountCell(c)),
    h('td', null, time(c.firstSeenAt)),
    h('td', null, time(c.lastSeenAt)),
    h('td', null, actions(c, onResolve)),
  );
}

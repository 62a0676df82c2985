// @ts-check
/** Browser module: a sync's planned changes grouped by action, each named beside its id, paged. */
import { api, enc } from './api.js';
import { errorBox, fill, h } from './dom.js';

/**
 * What GET /admin/sync/{jobId}/changes answers (the admin API's SyncChanges).
 *
 * @typedef {'create' | 'update' | 'adopt' | 'deprovision'} Action
 * @typedef {{
 *   kind: 'user' | 'group';
 *   id: string;
 *   action: Action;
 *   targetId?: string;
 *   attributes?: string[];
 *   userName?: string | null;
 *   displayName?: string | null;
 * }} Change
 * @typedef {{
 *   jobId: string;
 *   action: Action | null;
 *   planned: boolean;
 *   total: number;
 *   recorded: number;
 *   totals: Record<Action, number>;
 *   offset: number;
 *   limit: number;
 *   items: Change[];
 * }} ChangePage
 */

const PAGE = 25;

/** @type {{ action: Action; title: string; what: string }[]} */
const GROUPS = [
  { action: 'create', title: 'To create', what: 'created on the platform' },
  { action: 'update', title: 'To update', what: 'changed on the platform (the attributes listed)' },
  { action: 'adopt', title: 'To adopt', what: 'found on the platform and taken over as they are' },
  { action: 'deprovision', title: 'To deprovision', what: 'deactivated or deleted on the platform' },
];

/**
 * The identity of a change: its name, linked to its trace, with its id beside it.
 *
 * @param {'user' | 'group'} kind
 * @param {string} id
 * @param {string | null | undefined} name
 */
export function named(kind, id, name) {
  const link = h('a', { href: '#/identity/' + kind + '/' + enc(id) }, name || id);
  return name ? [link, ' ', h('code', { class: 'id' }, id)] : link;
}

/**
 * One action's changes, a page at a time.
 *
 * @param {string} jobId
 * @param {{ action: Action; title: string; what: string }} group
 * @param {ChangePage} first
 */
function actionGroup(jobId, group, first) {
  const section = h('section', { class: 'changes', id: 'changes-' + group.action });
  const message = h('div');
  /** @param {ChangePage} page */
  function render(page) {
    const from = page.offset + 1;
    const to = page.offset + page.items.length;
    const unrecorded = page.total - page.recorded;
    const rows = page.items.map(function (c) {
      return h(
        'tr',
        null,
        h('td', null, c.kind),
        h('td', null, named(c.kind, c.id, c.kind === 'user' ? c.userName : c.displayName)),
        h('td', null, (c.attributes || []).join(', ') || '—'),
      );
    });
    const go = function (/** @type {number} */ offset) {
      return async function () {
        try {
          render(await fetchPage(jobId, group.action, offset));
        } catch (error) {
          fill(message, errorBox(error));
        }
      };
    };
    fill(
      section,
      h('h3', null, group.title + ' (' + page.total + ')'),
      h(
        'p',
        { class: 'muted' },
        page.total === 1 ? 'One identity ' : page.total + ' identities ',
        group.what,
        page.recorded > page.items.length
          ? '; showing ' + from + '–' + to + ' of ' + page.recorded + '.'
          : '.',
      ),
      page.items.length === 0
        ? null
        : h(
            'table',
            null,
            h(
              'caption',
              { class: 'visually-hidden' },
              group.title + ': ' + from + '–' + to + ' of ' + page.recorded,
            ),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', { scope: 'col' }, 'kind'),
                h('th', { scope: 'col' }, 'identity (name, id)'),
                h('th', { scope: 'col' }, 'attributes'),
              ),
            ),
            h('tbody', null, rows),
          ),
      page.recorded <= PAGE
        ? null
        : h(
            'div',
            { class: 'row pager' },
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                disabled: page.offset === 0,
                onclick: go(Math.max(0, page.offset - PAGE)),
                'data-focus': 'prev-' + group.action,
              },
              'Previous',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                disabled: to >= page.recorded,
                onclick: go(to),
                'data-focus': 'next-' + group.action,
              },
              'Next',
            ),
          ),
      unrecorded > 0
        ? h(
            'p',
            { class: 'muted' },
            unrecorded + ' more are not listed: the sync records the first 100 changes of its plan.',
          )
        : null,
      message,
    );
  }
  render(first);
  return section;
}

/**
 * @param {string} jobId
 * @param {Action} action
 * @param {number} offset
 * @returns {Promise<ChangePage>}
 */
function fetchPage(jobId, action, offset) {
  const query = new URLSearchParams({ action: action, offset: String(offset), limit: String(PAGE) });
  return api('GET', 'sync/' + enc(jobId) + '/changes?' + query.toString());
}

/**
 * The plan's changes by action (create, update, adopt, deprovision), each group paged. Filled
 * once the pages arrive; an action with no change is left out.
 *
 * @param {string} jobId
 */
export function changesSection(jobId) {
  const element = h('div', { id: 'changes' });
  const load = async function () {
    const pages = await Promise.all(
      GROUPS.map(function (g) {
        return fetchPage(jobId, g.action, 0);
      }),
    );
    const shown = GROUPS.map(function (g, i) {
      const page = pages[i];
      return page && page.total > 0 ? actionGroup(jobId, g, page) : null;
    });
    const any = shown.some(Boolean);
    fill(
      element,
      h('h2', null, 'Changes by action'),
      any ? shown : h('p', { class: 'muted' }, 'Nothing to change.'),
    );
  };
  load().catch(function (error) {
    fill(element, h('h2', null, 'Changes by action'), errorBox(error));
  });
  return element;
}

// @ts-check
/** Browser module: a sync's planned changes grouped by action, each named beside its id, paged. */
import { api, enc } from './api.js';
import { errorBox, fill, h, listPage } from './dom.js';

/** @import { Child } from './dom.js' */

/**
 * GET /admin/sync/{jobId}/changes answers a ChangePage: a plan's changes by action, or one of the
 * lists beside them (what the run leaves to other inputs, a link-only run's).
 *
 * @import { Action, Change, ChangePage } from '../api-types.js'
 */

const PAGE = 25;

/**
 * @typedef {{ action: Action; title: string; what: string; detail: string; noun?: [string, string] }} Group
 * @type {Group[]}
 */
const GROUPS = [
  {
    action: 'linked',
    title: 'Linked',
    what: 'recorded as managed: the platform account listed',
    detail: 'platform id',
  },
  {
    action: 'unmatchedInSource',
    title: 'Unmatched in the source',
    what: 'fitting no platform account: a normal sync creates them',
    detail: '',
  },
  {
    action: 'unmatchedOnPlatform',
    title: 'Unmatched on the platform',
    what: 'that no identity matched nor manages: left alone',
    detail: 'platform id',
    noun: ['platform account', 'platform accounts'],
  },
  {
    action: 'ambiguous',
    title: 'Ambiguous',
    what: 'fitting two platform accounts each: sent to the conflict inbox',
    detail: 'accounts that fit',
  },
  { action: 'create', title: 'To create', what: 'created on the platform', detail: 'attributes' },
  {
    action: 'update',
    title: 'To update',
    what: 'changed on the platform (the attributes listed)',
    detail: 'attributes',
  },
  {
    action: 'adopt',
    title: 'To adopt',
    what: 'found on the platform and taken over as they are',
    detail: 'attributes',
  },
  {
    action: 'deprovision',
    title: 'To deprovision',
    what: 'deactivated or deleted on the platform',
    detail: 'attributes',
  },
  {
    action: 'ownedElsewhere',
    title: 'Left to other inputs',
    what: 'owned by another input, or held by one (refused): never removed by this sync',
    detail: 'owner',
  },
];

/**
 * What a row says beside the identity: the attributes of a change, the owner of what another input
 * holds, the platform account linked or left alone, the accounts that fit an ambiguous one.
 *
 * @param {Change} c
 */
function detail(c) {
  if (c.action === 'ownedElsewhere')
    return (c.owner || '—') + (c.refused ? ' (refused: ' + c.refused + ')' : '');
  if (c.candidates)
    return c.candidates
      .map(function (k) {
        return k.name + ' (' + k.by + ', ' + k.targetId + ')';
      })
      .join('; ');
  if (c.action === 'linked' || c.action === 'unmatchedOnPlatform') return c.targetId || '—';
  return (c.attributes || []).join(', ') || '—';
}

/**
 * The identity of a change: its name, linked to its trace, with its id beside it.
 *
 * @param {'user' | 'group'} kind
 * @param {string | null} id null: a platform account the bridge does not hold
 * @param {string | null | undefined} name
 */
export function named(kind, id, name) {
  if (id === null) return name || '—';
  const link = h('a', { href: '#/identity/' + kind + '/' + enc(id) }, name || id);
  return name ? [link, ' ', h('code', { class: 'id' }, id)] : link;
}

/**
 * One action's changes, a page at a time.
 *
 * @param {string} jobId
 * @param {Group} group
 * @param {ChangePage} first
 */
function actionGroup(jobId, group, first) {
  const section = h('section', { class: 'changes', id: 'changes-' + group.action });
  const message = h('div');
  /** @param {ChangePage} page */
  function render(page) {
    /** @param {number} offset */
    const go = function (offset) {
      return async function () {
        try {
          render(await fetchPage(jobId, group.action, offset));
        } catch (error) {
          fill(message, errorBox(error));
        }
      };
    };
    fill(section, groupPage(group, page, go), message);
  }
  render(first);
  return section;
}

/**
 * A page of one group: how many it holds, the page's changes, the pager, and how many the record
 * does not list.
 *
 * @param {Group} group
 * @param {ChangePage} page
 * @param {(offset: number) => () => Promise<void>} go
 * @returns {Child[]}
 */
function groupPage(group, page, go) {
  const count =
    page.total === 1
      ? 'One ' + (group.noun ? group.noun[0] : 'identity') + ' '
      : page.total + ' ' + (group.noun ? group.noun[1] : 'identities') + ' ';
  return listPage(
    {
      key: group.action,
      title: group.title,
      count: count + group.what,
      unlisted: 'the sync records the first 100 of each list of its plan.',
      size: PAGE,
    },
    page,
    function (caption) {
      return changeTable(group, page.items, caption);
    },
    go,
  );
}

/**
 * @param {Group} group
 * @param {Change[]} items
 * @param {string} caption
 */
function changeTable(group, items, caption) {
  return h(
    'table',
    null,
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, 'kind'),
        h('th', { scope: 'col' }, 'identity (name, id)'),
        h('th', { scope: 'col' }, group.detail || '—'),
      ),
    ),
    h(
      'tbody',
      null,
      items.map(function (c) {
        return h(
          'tr',
          null,
          h('td', null, c.kind),
          h('td', null, named(c.kind, c.id, c.kind === 'user' ? c.userName : c.displayName)),
          h('td', null, detail(c)),
        );
      }),
    ),
  );
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
 * The plan's changes by action (create, update, adopt, deprovision) and the lists beside them
 * (link-only: linked, unmatched, ambiguous; what it leaves to other inputs), each group paged.
 * Filled once the pages arrive: the first says how many each holds, and an empty one is left out.
 *
 * @param {string} jobId
 */
export function changesSection(jobId) {
  const element = h('div', { id: 'changes' });
  const load = async function () {
    const first = await fetchPage(jobId, 'create', 0);
    const pages = await Promise.all(
      GROUPS.map(function (g) {
        if (g.action === 'create') return first;
        return first.totals[g.action] > 0 ? fetchPage(jobId, g.action, 0) : undefined;
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

// @ts-check
/**
 * Browser module: a preview's identities by category — entering and leaving the scope, changed
 * (before → after, per attribute), unmappable (why), collisions (whose name) — by name, paged.
 */
import { api, enc } from './api.js';
import { errorBox, fill, h, listPage } from './dom.js';

/** @import { PreviewEntry, PreviewPage, PreviewSummary } from '../api-types.js' */
/** @import { Child } from './dom.js' */

/** @typedef {PreviewPage['category']} Category */
/** @typedef {{ category: Category; title: string; what: string; detail?: string }} List */

const PAGE = 25;

/** @type {List[]} */
export const LISTS = [
  { category: 'entering', title: 'Entering the scope', what: 'out of the scope in force, in the new one' },
  {
    category: 'leaving',
    title: 'Leaving the scope',
    what: 'in the scope in force, out of the new one: they would be deprovisioned',
  },
  {
    category: 'changed',
    title: 'Attributes changed',
    what: 'in both, mapped differently',
    detail: 'before → after',
  },
  {
    category: 'unmappable',
    title: 'Unmappable',
    what: 'the new configuration cannot map them: left out of the sync',
    detail: 'why',
  },
  {
    category: 'collisions',
    title: 'Collisions',
    what: 'mapped to a name another identity has first: left out',
    detail: 'the name is first that of',
  },
];

/** @param {string | boolean | null} value */
function shown(value) {
  if (value === null) return h('span', { class: 'muted' }, '(none)');
  return String(value);
}

/**
 * What a row says beside the identity: each attribute before → after, why, or whose name it is.
 *
 * @param {PreviewEntry} entry
 * @returns {Child}
 */
function detail(entry) {
  if (entry.changes)
    return h(
      'ul',
      { class: 'attribute-changes' },
      entry.changes.map(function (c) {
        return h(
          'li',
          { 'data-attribute': c.attribute },
          h('span', { class: 'attribute' }, c.attribute),
          ': ',
          h('del', null, shown(c.before)),
          ' → ',
          h('ins', null, shown(c.after)),
        );
      }),
    );
  if (entry.reason !== undefined) return entry.reason;
  if (entry.with !== undefined) return h('code', { class: 'id' }, entry.with);
  return null;
}

/** @param {PreviewEntry} entry the name, the source's id beside it, and its DN when it has one */
function identity(entry) {
  return [
    entry.name || h('span', { class: 'muted' }, '(no name)'),
    ' ',
    h('code', { class: 'id' }, entry.id),
    entry.label ? h('div', { class: 'muted label' }, entry.label) : null,
  ];
}

/**
 * @param {List} list
 * @param {PreviewEntry[]} items
 * @param {string} caption
 */
function entryTable(list, items, caption) {
  const headers = ['kind', 'identity (name, id)'].concat(list.detail ? [list.detail] : []);
  return h(
    'table',
    { class: 'preview-list' },
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        headers.map((label) => h('th', { scope: 'col' }, label)),
      ),
    ),
    h(
      'tbody',
      null,
      items.map(function (entry) {
        return h(
          'tr',
          null,
          h('td', null, entry.kind),
          h('td', null, identity(entry)),
          list.detail ? h('td', null, detail(entry)) : null,
        );
      }),
    ),
  );
}

/**
 * A page of one category: how many, the page's identities, the pager, how many are not listed.
 *
 * @param {List} list
 * @param {PreviewPage} page
 * @param {(offset: number) => () => Promise<void>} go
 * @returns {Child[]}
 */
function categoryPage(list, page, go) {
  const what = (page.total === 1 ? 'One identity ' : page.total + ' identities ') + list.what;
  return listPage(
    {
      key: list.category,
      title: list.title,
      count: what,
      unlisted: 'a preview keeps the first 500 by name.',
      size: PAGE,
    },
    page,
    function (caption) {
      return entryTable(list, page.items, caption);
    },
    go,
  );
}

/**
 * @param {string} jobId
 * @param {Category} category
 * @param {number} offset
 * @returns {Promise<PreviewPage>}
 */
function fetchPage(jobId, category, offset) {
  const query = new URLSearchParams({ category: category, offset: String(offset), limit: String(PAGE) });
  return api('GET', 'sync/' + enc(jobId) + '/preview?' + query.toString());
}

/**
 * One category's identities, a page at a time.
 *
 * @param {string} jobId
 * @param {List} list
 */
function categorySection(jobId, list) {
  const section = h('section', { class: 'changes', id: 'preview-' + list.category });
  const message = h('div');
  /** @param {number} offset */
  const go = function (offset) {
    return async function () {
      try {
        fill(section, categoryPage(list, await fetchPage(jobId, list.category, offset), go), message);
      } catch (error) {
        fill(message, errorBox(error));
      }
    };
  };
  go(0)();
  return section;
}

/**
 * The categories the preview counted any identity in, each paged; an empty one is left out.
 *
 * @param {string} jobId
 * @param {PreviewSummary['counts']} counts
 */
export function previewLists(jobId, counts) {
  const shown = LISTS.filter(function (list) {
    const c = counts[list.category];
    return c.users + c.groups > 0;
  });
  return [
    h('h2', null, 'Identities, by name'),
    shown.length === 0
      ? h(
          'p',
          { class: 'muted' },
          'No identity enters, leaves or changes: the candidate maps them all alike.',
        )
      : shown.map(function (list) {
          return categorySection(jobId, list);
        }),
  ];
}

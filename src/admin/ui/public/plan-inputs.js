// @ts-check
/** Browser module: what a sync's plan says of other inputs, and a link-only run's counts. */
import { h, table } from './dom.js';

/** @import { LinkOnly, OwnedElsewhere, SyncView } from '../api-types.js' */

/**
 * @param {number} n
 * @param {string} word
 */
function plural(n, word) {
  if (n === 1) return n + ' ' + word;
  return n + ' ' + (word.endsWith('y') ? word.slice(0, -1) + 'ies' : word + 's');
}

/**
 * The identities the run leaves to other inputs (never deprovisioned, deleted or counted against
 * DEPROVISION_LIMIT by it), by owner, the source's identities another input holds, and those
 * parked by their own ambiguous conflict (two platform accounts fit them).
 *
 * @param {OwnedElsewhere} owned
 */
export function ownedElsewhereSection(owned) {
  const refused = owned.refused.users + owned.refused.groups;
  const ambiguous = owned.ambiguous ? owned.ambiguous.users + owned.ambiguous.groups : 0;
  if (owned.users + owned.groups + refused + ambiguous === 0) return null;
  const owners = Object.entries(owned.owners).map(function ([owner, c]) {
    return owner + ': ' + plural(c.users, 'user') + ', ' + plural(c.groups, 'group');
  });
  return h(
    'p',
    { class: 'muted', id: 'owned-elsewhere' },
    owned.users + owned.groups > 0
      ? 'Left to other inputs, never removed by this sync: ' +
          plural(owned.users, 'user') +
          ', ' +
          plural(owned.groups, 'group') +
          ' (' +
          owners.join('; ') +
          '). '
      : null,
    refused > 0
      ? [
          plural(refused, 'identity') + ' of the source another input holds: see ',
          h('a', { href: '#/conflicts' }, 'Conflicts'),
          '. ',
        ]
      : null,
    ambiguous > 0
      ? [
          plural(ambiguous, 'identity') +
            ' of the source two platform accounts fit, waiting for an admin: see ',
          h('a', { href: '#/conflicts' }, 'Conflicts'),
          '.',
        ]
      : null,
  );
}

/**
 * A link-only run's lists by kind; the plan's counts below it are what a normal sync would do next.
 *
 * @param {LinkOnly} link
 * @param {SyncView} sync
 */
export function linkOnlySection(link, sync) {
  /** @type {(keyof import('../api-types.js').LinkCounts)[]} */
  const lists = ['linked', 'unmatchedInSource', 'unmatchedOnPlatform', 'ambiguous'];
  /**
   * @param {string} label
   * @param {import('../api-types.js').LinkCounts} counts
   */
  const row = function (label, counts) {
    return [
      label,
      ...lists.map(function (list) {
        return counts[list];
      }),
    ];
  };
  return [
    h('h2', { id: 'link-only' }, 'Link-only'),
    h(
      'p',
      null,
      sync.dryRun
        ? 'A dry run: what a link-only run would record; nothing was recorded, nothing written.'
        : 'Matches recorded as managed; nothing was written to the platform. A normal sync creates the unmatched in the source; ambiguous ones wait in ',
      sync.dryRun ? null : [h('a', { href: '#/conflicts' }, 'Conflicts'), '.'],
    ),
    table(
      'Link-only, by kind',
      [{ label: 'kind' }].concat(
        lists.map(function (list) {
          return { label: list, num: true };
        }),
      ),
      [row('users', link.users), row('groups', link.groups), row('total', link)],
    ),
  ];
}

/**
 * A link-only run in one line, each list by kind: `linked: 100 users; unmatched in the source: 20
 * users and 4 groups; …` (the list of syncs shows it).
 *
 * @param {LinkOnly} link
 */
export function linkOutcome(link) {
  /** @type {[keyof import('../api-types.js').LinkCounts, string][]} */
  const lists = [
    ['linked', 'linked'],
    ['unmatchedInSource', 'unmatched in the source'],
    ['unmatchedOnPlatform', 'on the platform'],
    ['ambiguous', 'ambiguous'],
  ];
  return lists
    .map(function ([list, label]) {
      const parts = [];
      if (link.users[list] > 0) parts.push(plural(link.users[list], 'user'));
      if (link.groups[list] > 0) parts.push(plural(link.groups[list], 'group'));
      return label + ': ' + (parts.length > 0 ? parts.join(' and ') : 'none');
    })
    .join('; ');
}

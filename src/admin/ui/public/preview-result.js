// @ts-check
/**
 * Browser module: what a preview found — counts per category, the guards a sync with it would
 * trip, its identities by category, and the two configurations side by side.
 */
import { enc } from './api.js';
import { badge, h, table } from './dom.js';
import { holdReasonText, planLine } from './plan.js';
import { LISTS, previewLists } from './preview-lists.js';

/** @import { PreviewSummary, SyncPlan, SyncView } from '../api-types.js' */
/** @import { Child } from './dom.js' */

/** @typedef {PreviewSummary['before']['settings']} Settings */

/**
 * What each side is: a preview compares the configuration in force with its candidate; a sync whose
 * configuration changed compares the last applied one with the one in force.
 *
 * @param {SyncView} sync
 * @returns {{ before: string; after: string; title: string }}
 */
function sides(sync) {
  return sync.candidate
    ? { before: 'in force', after: 'candidate', title: 'The candidate beside the configuration in force' }
    : {
        before: 'last applied',
        after: 'in force',
        title: 'The configuration in force beside the one last applied',
      };
}

/** @param {PreviewSummary} preview */
function countsSection(preview) {
  const rows = LISTS.map(function (list) {
    const c = preview.counts[list.category];
    return [list.category, c.users, c.groups, list.what];
  });
  const same = preview.counts.unchanged;
  rows.push(['unchanged', same.users, same.groups, 'the same under both (or out of both scopes)']);
  const num = function (/** @type {string} */ label) {
    return { label: label, num: true };
  };
  return [
    h('h2', { id: 'preview-counts' }, 'Counts'),
    table('Identities by category', ['category', num('users'), num('groups'), 'what'], rows),
    h(
      'p',
      { class: 'muted', id: 'preview-renames' },
      preview.renames === 1
        ? '1 user or group is renamed (its userName or displayName changes).'
        : preview.renames + ' users and groups are renamed (their userName or displayName changes).',
    ),
  ];
}

/**
 * The guards a sync with this configuration would trip, and the plan they weigh.
 *
 * @param {SyncPlan | undefined} plan
 * @param {string} jobId
 */
function guardsSection(plan, jobId) {
  const reasons = plan ? plan.holdReasons : [];
  return [
    h('h2', { id: 'preview-guards-title' }, 'Guards it would trip'),
    reasons.length === 0
      ? h('p', { id: 'preview-guards' }, 'None: a sync with this configuration would not be held.')
      : h(
          'ul',
          { id: 'preview-guards' },
          reasons.map(function (reason) {
            return h(
              'li',
              { 'data-reason': reason },
              badge('awaiting-approval', reason),
              ' ',
              whyHeld(plan, reason),
            );
          }),
        ),
    plan
      ? h(
          'p',
          { class: 'muted' },
          'Its plan against the platform: ' + planLine(plan) + ' — ',
          h('a', { href: '#/syncs/' + enc(jobId) }, 'the plan in full'),
          '.',
        )
      : null,
  ];
}

/**
 * @param {SyncPlan | undefined} plan
 * @param {SyncPlan['holdReasons'][number]} reason
 */
function whyHeld(plan, reason) {
  return plan ? holdReasonText(plan, reason) : reason;
}

/**
 * Each setting's expression as [name, value]: scope.users, …, mapping.users.userName, ….
 *
 * @param {Settings} settings
 * @returns {[string, string][]}
 */
function flatten(settings) {
  /** @type {[string, string][]} */
  const out = [];
  for (const [name, value] of Object.entries(settings.scope)) out.push(['scope.' + name, value]);
  for (const kind of /** @type {const} */ (['users', 'groups']))
    for (const [name, value] of Object.entries(settings.mapping[kind]))
      out.push(['mapping.' + kind + '.' + name, value]);
  return out;
}

/** @param {string | undefined} value */
function expression(value) {
  if (!value) return h('span', { class: 'muted' }, "(empty: the source's own)");
  return h('code', null, value);
}

/**
 * @param {PreviewSummary} preview
 * @param {ReturnType<typeof sides>} labels
 */
function settingsSection(preview, labels) {
  const before = new Map(flatten(preview.before.settings));
  const after = new Map(flatten(preview.after.settings));
  const names = Array.from(new Set([...before.keys(), ...after.keys()]));
  const rows = names.map(function (name) {
    const differs = (before.get(name) || '') !== (after.get(name) || '');
    return h(
      'tr',
      { class: differs ? 'differs' : null, 'data-setting': name },
      h('th', { scope: 'row' }, name),
      h('td', { class: 'value' }, expression(before.get(name))),
      h('td', { class: 'value' }, expression(after.get(name))),
      h('td', null, differs ? badge('awaiting-approval', 'differs') : badge('ok', 'same')),
    );
  });
  const fingerprints = h(
    'tr',
    null,
    h('th', { scope: 'row' }, 'fingerprint'),
    h('td', null, h('code', { class: 'id' }, preview.before.fingerprint)),
    h('td', null, h('code', { class: 'id' }, preview.after.fingerprint)),
    h('td', null),
  );
  const head = ['setting', labels.before, labels.after, 'compared'].map((l) => h('th', { scope: 'col' }, l));
  return [
    h('h2', { id: 'preview-settings' }, labels.title),
    h(
      'table',
      { class: 'compare' },
      h('caption', null, 'Scope and mapping: ' + labels.before + ' and ' + labels.after),
      h('thead', null, h('tr', null, head)),
      h('tbody', null, rows, fingerprints),
    ),
  ];
}

/**
 * The result of a sync that compared two scopes and mappings (a preview, or a changed configuration).
 *
 * @param {SyncView} sync
 * @returns {Child[]}
 */
export function previewResult(sync) {
  const preview = sync.preview;
  if (!preview)
    return [
      h(
        'p',
        { class: 'muted', id: 'preview-none' },
        'This sync compared no scope and mapping: its input has none, or its configuration did not change.',
      ),
    ];
  return [
    countsSection(preview),
    guardsSection(sync.plan, sync.jobId),
    previewLists(sync.jobId, preview.counts),
    settingsSection(preview, sides(sync)),
  ];
}

/**
 * What a refused preview still found (a candidate that keeps no user in ends with source_empty):
 * its counts, its identities by category and the two configurations; no guards, as it has no plan.
 *
 * @param {SyncView} sync
 * @returns {Child[]}
 */
export function refusedPreviewResult(sync) {
  const preview = sync.preview;
  if (!preview) return [];
  return [
    countsSection(preview),
    previewLists(sync.jobId, preview.counts),
    settingsSection(preview, sides(sync)),
  ];
}

// @ts-check
/** Browser module: a sync's plan — counts by kind, why it is held, what it removes (named). */
import { enc } from './api.js';
import { h, table } from './dom.js';
import { linkOnlySection, ownedElsewhereSection } from './plan-inputs.js';

/** @import { KindCounts, PlanSource, Removals, SyncPlan, SyncView } from '../api-types.js' */
/** @import { Child } from './dom.js' */

/**
 * @param {SyncPlan} plan
 * @param {SyncView} sync the sync the plan belongs to: waiting for approval, a dry run, running or ended
 */
export function planSection(plan, sync) {
  const awaiting = sync.state === 'awaiting-approval';
  /** @type {(keyof KindCounts)[]} */
  const kinds = ['create', 'update', 'deprovision', 'unchanged'];
  /**
   * @param {string} label
   * @param {KindCounts} counts
   */
  const row = function (label, counts) {
    return [
      label,
      ...kinds.map(function (k) {
        return counts[k];
      }),
    ];
  };
  /** @type {Child[]} */
  const out = [
    plan.linkOnly ? linkOnlySection(plan.linkOnly, sync) : null,
    h('h2', { id: 'plan' }, plan.linkOnly ? 'Plan of the next normal sync' : 'Plan'),
    table(
      'Planned changes by kind',
      [{ label: 'kind' }].concat(
        kinds.map(function (k) {
          return { label: k, num: true };
        }),
      ),
      [row('users', plan.users), row('groups', plan.groups), row('total', plan)],
    ),
  ];
  if (plan.held) out.push(heldNotice(plan, sync));
  if (plan.source) out.push(sourceLine(plan.source));
  if (plan.unmanagedUsers)
    out.push(
      h(
        'p',
        { class: 'muted' },
        plan.unmanagedUsers + ' target users are not managed by the bridge and are left alone.',
      ),
    );
  if (plan.ownedElsewhere) out.push(ownedElsewhereSection(plan.ownedElsewhere));
  if (plan.removals) out.push(removalsSection(plan.removals, plan.held && awaiting));
  return out;
}

/** @type {SyncPlan['holdReasons']} the order the notice names them in */
const REASONS = ['deprovision-limit', 'source-shrink', 'configuration-changed'];

/**
 * Why a guard holds the plan, in words: its figures beside the limit it is over.
 *
 * @param {SyncPlan} plan
 * @param {SyncPlan['holdReasons'][number]} reason
 */
export function holdReasonText(plan, reason) {
  const source = plan.source;
  if (reason === 'deprovision-limit')
    return (
      'it deprovisions ' +
      plan.users.deprovision +
      ' users, over DEPROVISION_LIMIT ' +
      (plan.deprovisionLimitSetting || '') +
      ' (' +
      plan.deprovisionLimit +
      ' users here)'
    );
  if (reason === 'source-shrink' && source && source.last)
    return (
      'its source lists ' +
      source.users +
      ' users, ' +
      source.shrunkByPercent +
      '% fewer than the ' +
      source.last.users +
      ' of its last completed sync (SOURCE_SHRINK_LIMIT ' +
      source.shrinkLimitPercent +
      '%)'
    );
  if (reason === 'configuration-changed')
    return 'configuration changed: its scope or mapping removes or renames more users than DEPROVISION_LIMIT';
  return reason;
}

/**
 * @param {SyncPlan} plan
 * @param {SyncView} sync
 */
function heldNotice(plan, sync) {
  const reasons = plan.holdReasons || [];
  const why = REASONS.filter(function (reason) {
    return reasons.includes(reason);
  }).map(function (reason) {
    return holdReasonText(plan, reason);
  });
  const because = why.join(', and ');
  if (sync.dryRun)
    return h('p', { class: 'error', id: 'held' }, 'A sync would be held, because ' + because + '.');
  if (sync.state === 'running')
    return h(
      'p',
      { id: 'held' },
      'Approved: the sync plans again against the platform and applies all of it.',
    );
  if (sync.state !== 'awaiting-approval')
    return h(
      'p',
      { class: 'muted', id: 'held' },
      'This sync was held (' + because + ') and not approved: nothing of it was applied.',
    );
  return h(
    'p',
    { class: 'error', role: 'alert', id: 'held' },
    'Held: nothing of this sync has been applied, because ' +
      because +
      '. Approve to apply all of it (it plans again against the platform), or cancel to apply none of it.',
  );
}

/** @param {PlanSource} source */
function sourceLine(source) {
  const now = source.users === undefined ? 'no source: the current desired state' : source.users + ' users';
  const last = source.last
    ? '; its last completed sync listed ' +
      source.last.users +
      (source.shrunkByPercent ? ' (' + source.shrunkByPercent + '% fewer now)' : '')
    : '';
  const owner = source.owner ? ' (' + source.owner + ')' : '';
  return h('p', { class: 'muted' }, 'Source ' + source.name + owner + ': ' + now + last + '.');
}

/**
 * An identity's id, linked to its trace; a dash when the platform's account is not the bridge's.
 *
 * @param {string} kind
 * @param {string | null} id
 */
function link(kind, id) {
  return id ? h('a', { href: '#/identity/' + kind + '/' + enc(id) }, id) : '—';
}

/**
 * @param {{ total: number; sample: unknown[] }} part
 * @param {string} what
 */
function caption(part, what) {
  return (
    what + ' (' + part.total + (part.total > part.sample.length ? ', first ' + part.sample.length : '') + ')'
  );
}

/**
 * @param {Removals} removals
 * @param {boolean} held
 */
function removalsSection(removals, held) {
  const count = removals.users.total + removals.groups.total + removals.memberships.total;
  if (count === 0) return null;
  return [
    h('h2', { id: 'removals' }, held ? 'Removals held for approval' : 'Removals'),
    table(
      caption(removals.users, 'Users to deprovision'),
      ['user', 'userName'],
      removals.users.sample.map(function (u) {
        return [link('user', u.id), u.userName || '—'];
      }),
      'No user to deprovision.',
    ),
    table(
      caption(removals.groups, 'Groups to delete'),
      ['group', 'displayName'],
      removals.groups.sample.map(function (g) {
        return [link('group', g.id), g.displayName || '—'];
      }),
      'No group to delete.',
    ),
    table(
      'Members to remove (' +
        removals.memberships.total +
        ' from ' +
        removals.memberships.groups +
        ' groups)',
      ['group', { label: 'members removed', num: true }, 'members (userName)'],
      removals.memberships.sample.map(function (m) {
        const names = m.removed.map(function (u) {
          return u.userName || u.id || '?';
        });
        const more = m.total > names.length ? ', … ' + (m.total - names.length) + ' more' : '';
        return [
          link('group', m.group),
          m.total,
          (m.displayName ? m.displayName + ': ' : '') + names.join(', ') + more,
        ];
      }),
      'No member to remove.',
    ),
  ];
}

/**
 * A plan in one line: how many to create, update, deprovision, and unchanged.
 *
 * @param {SyncPlan} plan
 */
export function planLine(plan) {
  return (
    plan.create +
    ' to create, ' +
    plan.update +
    ' to update, ' +
    plan.deprovision +
    ' to deprovision, ' +
    plan.unchanged +
    ' unchanged'
  );
}

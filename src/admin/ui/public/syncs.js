// @ts-check
/** Browser module: sync history, starting a (dry) run, one sync's plan and progress, approve and cancel. */
import { api, enc } from './api.js';
import { announce, badge, duration, errorBox, fill, h, heading, kv, table, time } from './dom.js';
import { progressOf, summaryTable } from './overview.js';
import { planSection } from './plan.js';

/** @import { SyncPlan, SyncView } from './api.js' */
/** @import { View } from './dom.js' */

const ENDED = ['completed', 'failed'];

/**
 * @param {HTMLElement} container
 * @returns {Promise<View>}
 */
export async function syncsView(container) {
  const message = h('div');
  const list = h('div');
  /** @param {boolean} dryRun */
  const start = function (dryRun) {
    return async function () {
      if (!dryRun && !confirm('Start a full sync now? It writes to the platform.')) return;
      try {
        /** @type {{ jobId: string; started: boolean }} */
        const started = await api('POST', 'sync', { dryRun: dryRun });
        announce(
          started.started
            ? 'Sync ' + started.jobId + ' started'
            : 'A sync is already running: ' + started.jobId,
        );
        location.hash = '#/syncs/' + enc(started.jobId);
      } catch (error) {
        fill(message, errorBox(error));
      }
    };
  };
  fill(
    container,
    heading('Syncs'),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', onclick: start(true) }, 'Start dry run'),
      h('button', { type: 'button', class: 'secondary', onclick: start(false) }, 'Start full sync'),
    ),
    message,
    list,
  );
  async function refresh() {
    /** @type {{ syncs: SyncView[] }} */
    const answer = await api('GET', 'sync?limit=50');
    fill(
      list,
      table(
        'Recent syncs, newest first',
        ['sync', 'state', 'kind', 'trigger', 'created', 'progress / result'],
        answer.syncs.map(function (s) {
          return [
            h('a', { href: '#/syncs/' + enc(s.jobId), 'data-focus': 'sync-' + s.jobId }, s.jobId),
            badge(s.state),
            s.dryRun ? 'dry run' : 'sync',
            s.trigger,
            time(s.createdAt),
            outcome(s),
          ];
        }),
        'No sync has run yet.',
      ),
    );
  }
  await refresh();
  return { refresh: refresh, every: 2000 };
}

/** @param {SyncView} sync */
function outcome(sync) {
  if (!ENDED.includes(sync.state) && sync.state !== 'awaiting-approval') return progressOf(sync);
  if (sync.error) return sync.error.code + ': ' + sync.error.message;
  if (sync.dryRun && sync.plan) return 'plan: ' + planLine(sync.plan);
  if (sync.summary) {
    const s = sync.summary;
    return (
      s.created +
      ' created, ' +
      s.updated +
      ' updated, ' +
      s.deprovisioned +
      ' deprovisioned, ' +
      s.failed +
      ' failed in ' +
      duration(s.durationMs)
    );
  }
  return sync.plan ? 'plan: ' + planLine(sync.plan) : '—';
}

/** @param {SyncPlan} plan */
function planLine(plan) {
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

/**
 * @param {HTMLElement} container
 * @param {string} jobId
 * @returns {Promise<View>}
 */
export async function syncDetailView(container, jobId) {
  const body = h('div');
  const message = h('div');
  fill(container, heading('Sync ' + jobId), message, body);
  /**
   * @param {'approve' | 'cancel'} action
   * @param {string} done announced once the bridge accepted it
   */
  const act = function (action, done) {
    return async function () {
      try {
        await api('POST', 'sync/' + enc(jobId) + '/' + action);
        announce(done);
        await refresh();
      } catch (error) {
        fill(message, errorBox(error));
      }
    };
  };
  async function refresh() {
    /** @type {SyncView} */
    const sync = await api('GET', 'sync/' + enc(jobId));
    const actions = h(
      'div',
      { class: 'row' },
      sync.state === 'awaiting-approval'
        ? h(
            'button',
            { type: 'button', onclick: act('approve', 'Sync approved'), 'data-focus': 'approve' },
            'Approve the sync',
          )
        : null,
      ENDED.includes(sync.state)
        ? null
        : h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: act('cancel', 'Cancel requested'),
              'data-focus': 'cancel',
            },
            'Cancel sync',
          ),
    );
    fill(
      body,
      kv([
        ['State', h('span', { id: 'sync-state' }, badge(sync.state))],
        ['Kind', sync.dryRun ? 'dry run (writes nothing)' : 'full sync'],
        ['Trigger', sync.trigger],
        ['Created', time(sync.createdAt)],
        ['Started', time(sync.startedAt)],
        ['Finished', time(sync.finishedAt)],
        ['Progress', progressOf(sync)],
      ]),
      sync.cancelRequested ? h('p', null, 'Cancellation requested; the sync stops at its next step.') : null,
      sync.error ? errorBox({ message: sync.error.code + ': ' + sync.error.message }) : null,
      actions,
      sync.plan ? planSection(sync.plan, sync) : null,
      sync.summary && !sync.dryRun ? [h('h2', null, 'Summary'), summaryTable(sync.summary)] : null,
    );
  }
  await refresh();
  return { refresh: refresh, every: 1000 };
}

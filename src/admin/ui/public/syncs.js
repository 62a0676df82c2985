// @ts-check
/** Browser module: sync history, starting a (dry) run, one sync's plan and progress, approve and cancel. */
import { api, enc } from './api.js';
import { changesSection } from './changes.js';
import { syncChart } from './chart.js';
import { announce, badge, duration, errorBox, fill, h, heading, kv, table, time } from './dom.js';
import { progressOf, summaryTable } from './overview.js';
import { linkOutcome } from './plan-inputs.js';
import { planLine, planSection } from './plan.js';
import { readableInputs } from './preview-form.js';
import { isSettled, liveProgress } from './progress.js';

/** @import { SyncList, SyncPlan, SyncStartBody, SyncStarted, SyncView } from '../api-types.js' */
/** @import { View } from './dom.js' */

const ENDED = ['completed', 'failed'];

/**
 * @param {HTMLElement} container
 * @returns {Promise<View>}
 */
export async function syncsView(container) {
  const message = h('div');
  const chart = h('div');
  const list = h('div');
  const input = await inputChoice();
  /** @param {boolean} dryRun */
  const start = function (dryRun) {
    return function () {
      return startSync(dryRun, input.select ? input.select.value : undefined, message);
    };
  };
  fill(
    container,
    heading('Syncs'),
    h(
      'div',
      { class: 'row' },
      input.element,
      h('button', { type: 'button', onclick: start(true) }, 'Start dry run'),
      h('button', { type: 'button', class: 'secondary', onclick: start(false) }, 'Start full sync'),
    ),
    message,
    chart,
    list,
  );
  async function refresh() {
    /** @type {SyncList} */
    const answer = await api('GET', 'sync?limit=50');
    fill(chart, syncChart(answer.syncs));
    fill(
      list,
      table(
        'Recent syncs, newest first',
        ['sync', 'input', 'state', 'kind', 'trigger', 'created', 'progress / result'],
        answer.syncs.map(function (s) {
          return [
            h('a', { href: '#/syncs/' + enc(s.jobId), 'data-focus': 'sync-' + s.jobId }, s.jobId),
            s.input || '—',
            badge(s.state),
            (s.linkOnly ? 'link-only ' : '') + (s.dryRun ? 'dry run' : 'sync'),
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

/**
 * Which input a started sync reads, when more than one can be read in full (several directories,
 * okta): a choice, the default one first; otherwise nothing to choose.
 *
 * @returns {Promise<{ element: HTMLElement | null; select: HTMLSelectElement | null }>}
 */
async function inputChoice() {
  const inputs = await readableInputs().catch(function () {
    return [];
  });
  if (inputs.length < 2) return { element: null, select: null };
  const select = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'sync-input' },
      inputs.map(function (input) {
        return h('option', { value: input.input }, input.input);
      }),
    )
  );
  return { element: h('label', null, 'Input ', select), select: select };
}

/**
 * Starts a dry run, or a full sync once confirmed, of the input chosen (the default one when none
 * is), and opens it (or the one of that input already running).
 *
 * @param {boolean} dryRun
 * @param {string | undefined} input
 * @param {HTMLElement} message where a refusal is shown
 */
async function startSync(dryRun, input, message) {
  if (
    !dryRun &&
    !confirm('Start a full sync of ' + (input || 'the directory') + ' now? It writes to the platform.')
  )
    return;
  try {
    /** @type {SyncStartBody} */
    const body = input ? { dryRun: dryRun, input: input } : { dryRun: dryRun };
    /** @type {SyncStarted} */
    const started = await api('POST', 'sync', body);
    announce(
      started.started ? 'Sync ' + started.jobId + ' started' : 'A sync is already running: ' + started.jobId,
    );
    location.hash = '#/syncs/' + enc(started.jobId);
  } catch (error) {
    fill(message, errorBox(error));
  }
}

/** @param {SyncView} sync */
function outcome(sync) {
  if (!ENDED.includes(sync.state) && sync.state !== 'awaiting-approval') return progressOf(sync);
  if (sync.error) return sync.error.code + ': ' + sync.error.message;
  const link = sync.plan && sync.plan.linkOnly;
  if (link) return linkOutcome(link);
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

/** @param {SyncView} sync */
function kindOf(sync) {
  if (sync.linkOnly && sync.dryRun) return 'link-only dry run (records nothing, writes nothing)';
  if (sync.linkOnly) return 'link-only (records the matches, writes nothing to the platform)';
  return sync.dryRun ? 'dry run (writes nothing)' : 'full sync';
}

/**
 * One sync: its state and live progress, then its summary, then its plan — counts, why it is held,
 * what it removes — and its changes by action, named.
 *
 * @param {HTMLElement} container
 * @param {string} jobId
 * @returns {Promise<View>}
 */
export async function syncDetailView(container, jobId) {
  const message = h('div');
  const head = h('div');
  const summary = h('div');
  const plan = h('div');
  const changes = h('div');
  let changesOf = '';
  const live = liveProgress(function (now) {
    if (now.state === 'completed' || now.state === 'failed') announce('Sync ' + now.state);
    refresh().catch(function (error) {
      fill(message, errorBox(error));
    });
  });
  fill(container, heading('Sync ' + jobId), message, head, live.element, summary, plan, changes);
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
    fill(head, headOf(sync, act));
    live.show(sync);
    fill(
      summary,
      sync.summary && !sync.dryRun
        ? [h('h2', { id: 'summary' }, 'Summary'), summaryTable(sync.summary)]
        : null,
    );
    fill(plan, sync.plan ? planSection(sync.plan, sync) : null);
    // The changes keep their pages while the sync runs; a new plan (an approved sync plans again) reloads them.
    const key = sync.plan ? planKey(sync.plan) : '';
    if (key !== changesOf) fill(changes, key ? changesSection(jobId) : null);
    changesOf = key;
    if (!isSettled(sync)) live.follow(jobId);
  }
  await refresh();
  return {
    // While the progress stream is open it drives the view; otherwise (a held sync, a stream cut off) poll.
    refresh: function () {
      return live.following() ? Promise.resolve() : refresh();
    },
    every: 2000,
    stop: live.stop,
  };
}

/** @param {SyncPlan} plan */
function planKey(plan) {
  return JSON.stringify([plan.create, plan.update, plan.deprovision, plan.unchanged, plan.approved || false]);
}

/**
 * @param {SyncView} sync
 * @param {(action: 'approve' | 'cancel', done: string) => () => Promise<void>} act
 */
function headOf(sync, act) {
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
  return [
    kv([
      ['State', h('span', { id: 'sync-state' }, badge(sync.state))],
      ['Kind', kindOf(sync)],
      ['Trigger', sync.trigger],
      ['Started', time(sync.startedAt || sync.createdAt)],
      ['Finished', time(sync.finishedAt)],
    ]),
    sync.cancelRequested ? h('p', null, 'Cancellation requested; the sync stops at its next step.') : null,
    sync.error ? errorBox({ message: sync.error.code + ': ' + sync.error.message }) : null,
    previewLink(sync),
    actions,
  ];
}

/**
 * A sync that compared two scopes and mappings (a preview, or a configuration changed since the
 * last applied one) links to the Preview view, which shows what differs, identity by identity.
 *
 * @param {SyncView} sync
 */
function previewLink(sync) {
  if (!sync.preview) return null;
  const what = sync.candidate
    ? 'What its candidate scope and mapping change'
    : 'What its scope and mapping change since the last applied sync';
  return h('p', null, h('a', { href: '#/preview/' + enc(sync.jobId), id: 'sync-preview-link' }, what));
}

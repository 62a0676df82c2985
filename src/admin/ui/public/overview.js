// @ts-check
/** Browser module: the overview — target health, counts, the running sync, the last one, queues. */
import { adminUrl, api } from './api.js';
import { badge, duration, errorBox, fill, h, heading, kv, table, time } from './dom.js';
import { inputsSection } from './inputs.js';
import { liveProgress } from './progress.js';

/** @import { Status, SyncSummary, SyncView, TargetHealth } from '../api-types.js' */
/** @import { Child, View } from './dom.js' */

/**
 * @param {HTMLElement} container
 * @returns {Promise<View>}
 */
export async function overviewView(container) {
  const body = h('div');
  const active = h('div');
  const rest = h('div');
  /** @type {{ jobId: string; live: ReturnType<typeof liveProgress> } | null} */
  let running = null;
  const boardMessage = h('div');
  const board = queueBoardButton(boardMessage);
  fill(container, heading('Overview'), body, active, rest, h('div', { class: 'row' }, board), boardMessage);
  /**
   * The running sync's live progress stays in place across refreshes, fed by its progress stream.
   *
   * @param {SyncView | null | undefined} sync
   */
  function showActive(sync) {
    if (running && (!sync || running.jobId !== sync.jobId)) running.live.stop();
    if (!sync) {
      running = null;
      return void fill(
        active,
        h('h2', null, 'Running sync'),
        h('p', { class: 'muted' }, 'No sync is running.'),
      );
    }
    if (!running || running.jobId !== sync.jobId) {
      running = { jobId: sync.jobId, live: liveProgress(refreshQuietly) };
      fill(active, activeSection(sync), running.live.element);
    }
    running.live.show(sync);
    running.live.follow(sync.jobId);
  }
  async function refresh() {
    /** @type {Status} */
    const status = await api('GET', 'status');
    fill(body, cards(status), targetSection(status.target), inputsSection(status.inputs));
    showActive(status.activeSync);
    fill(rest, lastSection(status.lastSync, status.lastFullSync), queuesSection(status.queues));
  }
  function refreshQuietly() {
    refresh().catch(function () {});
  }
  await refresh();
  return {
    refresh: refresh,
    every: 2000,
    stop: function () {
      if (running) running.live.stop();
    },
  };
}

/**
 * Opens bull-board in a new tab, once the session cookie it needs is set (a page cannot send the
 * token itself).
 *
 * @param {HTMLElement} message where a refusal is shown
 */
function queueBoardButton(message) {
  return h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async function () {
        try {
          await api('POST', 'queues/session', undefined, { cookies: true });
          window.open(adminUrl('queues/'), '_blank', 'noopener');
        } catch (error) {
          fill(message, errorBox(error));
        }
      },
    },
    'Open the queue board (bull-board)',
  );
}

/**
 * @param {string} label
 * @param {string | number} value
 * @param {string} [href]
 */
function card(label, value, href) {
  const text = h('div', { class: 'value' }, String(value));
  return h(
    'div',
    { class: 'card' },
    href ? h('a', { href: href, 'data-focus': 'card-' + label }, text) : text,
    h('div', { class: 'label' }, label),
  );
}

/** @param {Status} status */
function cards(status) {
  const ids = status.identities;
  return h(
    'div',
    { class: 'cards' },
    card('users desired / managed', ids.users.desired + ' / ' + ids.users.managed),
    card('groups desired / managed', ids.groups.desired + ' / ' + ids.groups.managed),
    card('users deprovisioned', ids.users.deprovisioned),
    card('failures', status.failures, '#/failures'),
    card('changes pending', status.pending),
  );
}

/** @param {TargetHealth} target */
function targetSection(target) {
  return [
    h('h2', null, 'Target'),
    kv([
      ['State', badge(target.state)],
      ['Since', time(target.since)],
      ['Detail', target.detail || '—'],
      ['Processing paused for', target.pausedForMs > 0 ? duration(target.pausedForMs) : 'not paused'],
    ]),
  ];
}

/** @param {SyncView} sync */
export function progressOf(sync) {
  const p = sync.progress;
  const label = p.phase + ': ' + p.done + ' of ' + p.total;
  return h(
    'div',
    null,
    h('progress', {
      max: Math.max(p.total, 1),
      value: Math.min(p.done, Math.max(p.total, 1)),
      'aria-label': 'Progress of ' + sync.jobId,
    }),
    h('div', { class: 'muted' }, label),
  );
}

/** @param {SyncView} sync */
function activeSection(sync) {
  return [
    h('h2', null, 'Running sync'),
    kv([
      [
        'Sync',
        h(
          'a',
          { href: '#/syncs/' + encodeURIComponent(sync.jobId), 'data-focus': 'active-sync' },
          sync.jobId,
        ),
      ],
      ['Dry run', sync.dryRun ? 'yes' : 'no'],
    ]),
  ];
}

/** @param {SyncSummary} summary */
export function summaryTable(summary) {
  return table(
    'Summary',
    ['created', 'updated', 'deprovisioned', 'unchanged', 'failed', 'requests', 'duration'].map(function (n) {
      return { label: n, num: true };
    }),
    [
      [
        summary.created,
        summary.updated,
        summary.deprovisioned,
        summary.unchanged,
        summary.failed,
        summary.requests.total || 0,
        duration(summary.durationMs),
      ],
    ],
  );
}

/**
 * @param {SyncView | null | undefined} last
 * @param {SyncView | null | undefined} lastFull
 */
function lastSection(last, lastFull) {
  /** @type {Child[]} */
  const out = [h('h2', null, 'Last full sync')];
  if (!lastFull) out.push(h('p', { class: 'muted' }, 'No full sync has completed yet.'));
  else {
    out.push(
      kv([
        ['Sync', h('a', { href: '#/syncs/' + encodeURIComponent(lastFull.jobId) }, lastFull.jobId)],
        ['Finished', time(lastFull.finishedAt)],
        ['Trigger', lastFull.trigger],
      ]),
    );
    if (lastFull.summary) out.push(summaryTable(lastFull.summary));
  }
  if (last && (!lastFull || last.jobId !== lastFull.jobId)) {
    out.push(
      h(
        'p',
        null,
        'Most recent sync: ',
        h('a', { href: '#/syncs/' + encodeURIComponent(last.jobId) }, last.jobId),
        ' ',
        badge(last.state),
        last.dryRun ? ' (dry run)' : '',
      ),
    );
  }
  return out;
}

/** @type {(keyof Status['queues']['reconcile'])[]} */
const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'];

/** @param {Status['queues']} queues */
function queuesSection(queues) {
  const rows = Object.entries(queues).map(function ([name, counts]) {
    return [
      name,
      ...STATES.map(function (s) {
        return counts[s];
      }),
    ];
  });
  return [
    h('h2', null, 'Queues'),
    table(
      'Jobs by state',
      [{ label: 'queue' }].concat(
        STATES.map(function (s) {
          return { label: s, num: true };
        }),
      ),
      rows,
    ),
  ];
}

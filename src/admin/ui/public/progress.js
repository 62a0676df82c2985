// @ts-check
/**
 * Browser module: a sync's live progress — its phases as a timeline, the current one with its bar —
 * fed by the bridge's progress stream while the sync runs (each change shows within a fifth of a
 * second), and saying how it ended once it has.
 */
import { enc } from './api.js';
import { badge, duration, fill, h } from './dom.js';
import { readEvents } from './stream.js';

/** @import { ProgressEvent, SyncView } from '../api-types.js' */
/** @typedef {{ phase: string; label: string; ms?: string[] }} Phase */

const SETTLED = ['completed', 'failed', 'awaiting-approval'];

/** In order; `ms`: the summary's phasesMs entries that make up the phase. */
/** @type {Phase[]} */
const PHASES = [
  { phase: 'queued', label: 'Queued' },
  { phase: 'reading-source', label: 'Reading the source', ms: ['readingSource'] },
  { phase: 'listing-target', label: 'Listing the platform', ms: ['listingTarget'] },
  { phase: 'planning', label: 'Planning', ms: ['planning'] },
  { phase: 'applying', label: 'Applying', ms: ['writingDesiredState', 'users', 'groups'] },
  { phase: 'awaiting-approval', label: 'Held for approval' },
  { phase: 'done', label: 'Done' },
];

/** @param {ProgressEvent} sync */
export function isSettled(sync) {
  return SETTLED.includes(sync.state);
}

/**
 * The phases this sync goes through: a dry run applies nothing, a held one stops before applying.
 *
 * @param {SyncView} sync
 * @param {ProgressEvent} now
 */
function phasesOf(sync, now) {
  const held = now.state === 'awaiting-approval' || now.progress.phase === 'awaiting-approval';
  return PHASES.filter(function (p) {
    if (p.phase === 'awaiting-approval') return held;
    if (p.phase === 'applying') return !sync.dryRun && !held;
    if (p.phase === 'done') return !held;
    return true;
  });
}

/**
 * @param {SyncView} sync the full view (for its kind and summary)
 * @param {ProgressEvent} now the latest state and progress
 */
function timeline(sync, now) {
  const phases = phasesOf(sync, now);
  const current = now.state === 'completed' ? phases.length - 1 : indexOf(phases, now.progress.phase);
  const summary = sync.state === now.state ? sync.summary : undefined;
  return h(
    'ol',
    { class: 'phases', 'aria-label': 'Phases' },
    phases.map(function (p, i) {
      const status =
        i < current || now.state === 'completed'
          ? 'done'
          : i > current
            ? 'todo'
            : now.state === 'failed'
              ? 'failed'
              : 'current';
      const took = summary && summary.phasesMs && p.ms ? sum(summary.phasesMs, p.ms) : undefined;
      const detail =
        p.phase === 'awaiting-approval'
          ? now.progress.total + ' removals wait'
          : status === 'current' && now.progress.total > 0 && p.phase !== 'done'
            ? now.progress.done + ' of ' + now.progress.total
            : took !== undefined
              ? duration(took)
              : '';
      return h(
        'li',
        { class: 'phase ' + status, 'data-phase': p.phase, 'data-status': status },
        h(
          'span',
          { class: 'mark', 'aria-hidden': 'true' },
          { done: '✓', current: '●', todo: '○', failed: '✕' }[status],
        ),
        h('span', null, p.label),
        h('span', { class: 'visually-hidden' }, ' (' + status + ')'),
        detail ? h('span', { class: 'muted' }, ' ' + detail) : null,
      );
    }),
  );
}

/**
 * @param {Phase[]} phases
 * @param {string} phase
 */
function indexOf(phases, phase) {
  const i = phases.findIndex(function (p) {
    return p.phase === phase;
  });
  return i < 0 ? 0 : i;
}

/**
 * @param {Record<string, number>} times
 * @param {string[]} names
 */
function sum(times, names) {
  return names.reduce(function (total, name) {
    return total + (times[name] || 0);
  }, 0);
}

/** @param {ProgressEvent} now */
function bar(now) {
  const p = now.progress;
  return h(
    'div',
    { class: 'live-bar' },
    h('progress', {
      max: Math.max(p.total, 1),
      value: now.state === 'completed' ? Math.max(p.total, 1) : Math.min(p.done, Math.max(p.total, 1)),
      'aria-label': 'Progress of ' + now.jobId,
    }),
    h('div', { id: 'sync-progress-text', class: 'muted' }, p.phase + ': ' + p.done + ' of ' + p.total),
  );
}

/**
 * The live progress panel of one sync. show() redraws it; follow() reads the progress stream until
 * the sync ends, calling onChange when its state or phase changes (the view then reads it whole:
 * a plan appears after planning, a summary at the end).
 *
 * @param {(event: ProgressEvent) => void} onChange
 */
export function liveProgress(onChange) {
  const element = h('section', { id: 'sync-live', class: 'live', 'aria-labelledby': 'sync-live-title' });
  /** @type {AbortController | null} */
  let open = null;
  /** @type {SyncView | null} */
  let sync = null;
  let note = '';

  /** @param {ProgressEvent} now */
  function draw(now) {
    if (sync) drawPanel(element, sync, now, note);
  }

  /**
   * Takes the sync's full view; while the stream is open its events draw the panel (they are newer),
   * unless the view says the sync ended.
   *
   * @param {SyncView} view
   */
  function show(view) {
    sync = view;
    if (!open || isSettled(view)) draw(view);
  }

  /** @param {string} jobId */
  async function follow(jobId) {
    if (open || !sync || isSettled(sync)) return;
    const controller = new window.AbortController();
    open = controller;
    note = 'Live: updated as it happens.';
    draw(sync);
    try {
      const onEvent = progressHandler(sync, { element, draw, onChange, stop });
      await readEvents('sync/' + enc(jobId) + '/events', onEvent, controller.signal);
    } catch (error) {
      note =
        'Live updates interrupted (' +
        (error instanceof Error ? error.message : String(error)) +
        '); refreshing every 2 s.';
      if (sync) draw(sync);
    } finally {
      if (open === controller) open = null;
    }
  }

  function stop() {
    if (open) open.abort();
    open = null;
  }

  function following() {
    return open !== null;
  }

  return { element: element, show: show, follow: follow, stop: stop, following: following };
}

/**
 * Draws the panel: the state, the phases so far, the bar while it runs, and a note (how it ended).
 *
 * @param {HTMLElement} element
 * @param {SyncView} sync the full view (for its kind and summary)
 * @param {ProgressEvent} now
 * @param {string} note
 */
function drawPanel(element, sync, now, note) {
  const ended = now.state === 'completed' ? 'completed' : now.state === 'failed' ? 'failed' : '';
  element.dataset.state = now.state;
  element.dataset.phase = ended || now.progress.phase;
  fill(
    element,
    h('h2', { id: 'sync-live-title' }, 'Progress ', badge(now.state, ended || now.state)),
    timeline(sync, now),
    isSettled(now) ? null : bar(now),
    h('p', { class: 'muted', id: 'sync-live-note' }, isSettled(now) ? settledText(sync, now) : note),
  );
}

/**
 * What the progress stream's events do: each draws the panel; a change of state or phase (and the
 * end) is told to onChange.
 *
 * @param {SyncView} sync as the stream opens
 * @param {{
 *   element: HTMLElement;
 *   draw: (now: ProgressEvent) => void;
 *   onChange: (now: ProgressEvent) => void;
 *   stop: () => void;
 * }} panel
 * @returns {(name: string, data: unknown) => void}
 */
function progressHandler(sync, panel) {
  let last = sync.state + ' ' + sync.progress.phase;
  return function (name, data) {
    // A view the page has left (replaced before it could be told) lets its stream go.
    if (!panel.element.isConnected) return panel.stop();
    if (name !== 'progress' && name !== 'end') return;
    const now = /** @type {ProgressEvent} */ (data);
    panel.draw(now);
    const key = now.state + ' ' + now.progress.phase;
    if (key !== last || name === 'end') panel.onChange(now);
    last = key;
  };
}

/**
 * @param {SyncView} sync
 * @param {ProgressEvent} now
 */
function settledText(sync, now) {
  if (now.state === 'awaiting-approval') return 'Held: waiting for an operator to approve or cancel it.';
  const took = sync.summary ? ' in ' + duration(sync.summary.durationMs) : '';
  if (now.state === 'completed')
    return (sync.dryRun ? 'The dry run completed' : 'The sync completed') + took + '.';
  return 'The sync failed during ' + now.progress.phase + '.';
}

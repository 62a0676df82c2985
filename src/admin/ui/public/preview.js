// @ts-check
/**
 * Browser module: the Preview view — a candidate scope and mapping (docs/scope-and-mapping.md)
 * previewed against an input as it is now, followed live to its end, then what it would change.
 * `#/preview` is the form; `#/preview/{jobId}` is the form and that preview's result.
 */
import { api, enc } from './api.js';
import { announce, errorBox, fill, h, heading } from './dom.js';
import { candidateForm } from './preview-form.js';
import { previewResult, refusedPreviewResult } from './preview-result.js';
import { isSettled, liveProgress } from './progress.js';

/** @import { SyncView } from '../api-types.js' */
/** @import { View } from './dom.js' */

const INTRO =
  'Read what a scope and mapping would change before it is made active: who enters and leaves the ' +
  'scope, whose attributes change, who cannot be mapped, which names collide, and the guards a sync ' +
  'with it would trip. A preview writes nothing.';

/**
 * The candidate a preview was started with, as its form shows it when reopened.
 *
 * @param {SyncView | null} sync
 */
function candidateText(sync) {
  if (!sync || !sync.candidate || !sync.preview) return '';
  return JSON.stringify(sync.preview.after.settings, null, 2);
}

/**
 * @param {HTMLElement} container
 * @param {string} [jobId] the preview to show
 * @returns {Promise<View>}
 */
export async function previewView(container, jobId) {
  const intro = h('p', { class: 'muted' }, INTRO);
  if (!jobId) {
    fill(container, heading('Preview'), intro, await candidateForm(''));
    return {};
  }
  const message = h('div');
  /** @type {SyncView | null} */
  let first = null;
  try {
    first = await api('GET', 'sync/' + enc(jobId));
  } catch (error) {
    fill(message, errorBox(error));
  }
  const form = await candidateForm(candidateText(first));
  const followed = followPreview(jobId, message);
  fill(
    container,
    heading('Preview'),
    intro,
    form,
    h('h2', { id: 'preview-title' }, 'Preview ', h('a', { href: '#/syncs/' + enc(jobId) }, jobId)),
    message,
    first ? [followed.live.element, followed.result] : null,
  );
  if (first) followed.show(first);
  return { refresh: followed.refresh, every: 2000, stop: followed.live.stop };
}

/**
 * A preview's progress, followed on its progress stream (polled when the stream is cut off), and
 * its result once it has ended.
 *
 * @param {string} jobId
 * @param {HTMLElement} message where a failure to read it is shown
 */
function followPreview(jobId, message) {
  const result = h('div', { id: 'preview-result', 'data-state': 'running' });
  let ended = false;
  // A change of state or phase on the stream: read the whole view (the result comes with the end).
  const live = liveProgress(function () {
    load().catch(function (error) {
      fill(message, errorBox(error));
    });
  });
  /** @param {SyncView} sync */
  function show(sync) {
    live.show(sync);
    if (!isSettled(sync)) return void live.follow(jobId);
    if (ended) return;
    ended = true;
    result.dataset.state = sync.state;
    fill(result, sync.error ? [failure(sync.error), refusedPreviewResult(sync)] : previewResult(sync));
    announce(sync.error ? 'The preview failed' : 'The preview is ready');
  }
  async function load() {
    /** @type {SyncView} */
    const sync = await api('GET', 'sync/' + enc(jobId));
    show(sync);
  }
  /** Polled: only while no stream drives the view and the preview has not ended. */
  function refresh() {
    return ended || live.following() ? Promise.resolve() : load();
  }
  return { live: live, result: result, show: show, refresh: refresh };
}

/** @param {NonNullable<SyncView['error']>} error */
function failure(error) {
  return errorBox({ message: 'The preview failed: ' + error.code + ': ' + error.message });
}

// @ts-check
/**
 * Browser module: a chart of recent syncs — how long each took and how many changes it made (a
 * dry run: planned) — drawn as SVG by this module (the page's CSP allows no outside script).
 */
import { enc } from './api.js';
import { duration, h } from './dom.js';

/** @import { SyncView } from '../api-types.js' */
/** @typedef {{ sync: SyncView; ms: number; changes: number }} Point */

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 720;
const PANEL = 90;
const LEFT = 64;
const TOP = 22;
const GAP = 34;

/**
 * An SVG element; attribute values go in as text.
 *
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @param {(Node | string)[]} children
 */
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const name of Object.keys(attrs)) el.setAttribute(name, String(attrs[name]));
  for (const child of children) el.append(child);
  return el;
}

/**
 * How long it took and what it changed, for the syncs that ended (or wait for approval).
 *
 * @param {SyncView} sync
 * @returns {Point | null}
 */
function pointOf(sync) {
  const ms = sync.summary
    ? sync.summary.durationMs
    : sync.startedAt && sync.finishedAt
      ? Date.parse(sync.finishedAt) - Date.parse(sync.startedAt)
      : null;
  if (ms === null || !Number.isFinite(ms)) return null;
  const done = sync.summary;
  const plan = sync.plan;
  const changes =
    done && !sync.dryRun
      ? done.created + done.updated + done.deprovisioned
      : plan
        ? plan.create + plan.update + plan.deprovision
        : 0;
  return { sync: sync, ms: Math.max(0, ms), changes: changes };
}

/**
 * One panel: a bar per sync, scaled to the largest value, with its axis label and maximum.
 *
 * @param {Point[]} points
 * @param {{ y: number; title: string; value: (p: Point) => number; label: (v: number) => string; kind: string }} panel
 */
function bars(points, panel) {
  const max = Math.max(1, ...points.map(panel.value));
  const step = (WIDTH - LEFT - 8) / points.length;
  const width = Math.max(2, Math.min(28, step * 0.7));
  const group = s(
    'g',
    { class: 'panel ' + panel.kind },
    s('text', { x: 0, y: panel.y - 8, class: 'chart-title' }, panel.title),
    s('text', { x: LEFT - 6, y: panel.y + 4, class: 'axis', 'text-anchor': 'end' }, panel.label(max)),
    s('text', { x: LEFT - 6, y: panel.y + PANEL, class: 'axis', 'text-anchor': 'end' }, '0'),
    s('line', { x1: LEFT, x2: WIDTH, y1: panel.y + PANEL, y2: panel.y + PANEL, class: 'baseline' }),
  );
  points.forEach(function (p, i) {
    const value = panel.value(p);
    const height = Math.max(value > 0 ? 1 : 0, (value / max) * PANEL);
    const x = LEFT + i * step + (step - width) / 2;
    const tone = p.sync.state === 'failed' ? ' failed' : p.sync.dryRun ? ' dry' : '';
    const title = p.sync.jobId + (p.sync.dryRun ? ' (dry run)' : '') + ': ' + panel.label(value);
    group.append(
      s(
        'a',
        { href: '#/syncs/' + enc(p.sync.jobId) },
        s(
          'rect',
          { x: x, y: panel.y + PANEL - height, width: width, height: height, class: 'bar' + tone },
          s('title', {}, title),
        ),
      ),
    );
  });
  return group;
}

/**
 * The chart of the syncs given (newest first, as the API lists them), oldest on the left; null when
 * none has ended yet.
 *
 * @param {SyncView[]} syncs
 */
export function syncChart(syncs) {
  const points = syncs
    .map(pointOf)
    .filter(/** @returns {p is Point} */ (p) => p !== null)
    .reverse();
  if (points.length === 0) return null;
  const bottom = TOP + PANEL * 2 + GAP;
  const height = bottom + 20;
  /** @param {Point} p */
  const when = function (p) {
    return new Date(p.sync.createdAt).toLocaleString();
  };
  const longest = points.reduce(function (a, b) {
    return b.ms > a.ms ? b : a;
  });
  const svg = s(
    'svg',
    {
      class: 'chart',
      viewBox: '0 0 ' + WIDTH + ' ' + height,
      role: 'img',
      'aria-labelledby': 'chart-title',
    },
    s(
      'title',
      { id: 'chart-title' },
      'Duration and changes of the last ' +
        points.length +
        ' syncs, oldest first; the longest took ' +
        duration(longest.ms),
    ),
    bars(points, { y: TOP, title: 'Duration', value: (p) => p.ms, label: duration, kind: 'duration' }),
    bars(points, {
      y: TOP + PANEL + GAP,
      title: 'Changes (a dry run: planned)',
      value: (p) => p.changes,
      label: (v) => String(Math.round(v)),
      kind: 'changes',
    }),
    s('text', { x: LEFT, y: bottom + 16, class: 'axis' }, when(points[0] || longest)),
    s(
      'text',
      { x: WIDTH, y: bottom + 16, class: 'axis', 'text-anchor': 'end' },
      when(points[points.length - 1] || longest),
    ),
  );
  return h(
    'figure',
    { class: 'chart-figure', id: 'sync-chart' },
    svg,
    h(
      'figcaption',
      { class: 'muted' },
      'Recent syncs, oldest on the left; a bar opens its sync. Lighter: dry runs; red: failed.',
    ),
  );
}

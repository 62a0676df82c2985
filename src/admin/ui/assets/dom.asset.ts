/** Browser module: building elements (text only, never HTML strings), formatting, announcements. */
export const DOM_JS = String.raw`/** h('a', {href: '#/x', class: 'c', onclick: fn}, 'text', child…): data always goes in as text. */
export function h(tag, props) {
  const el = document.createElement(tag);
  const attrs = props || {};
  for (const name of Object.keys(attrs)) {
    const value = attrs[name];
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name.slice(0, 2) === 'on') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, Array.prototype.slice.call(arguments, 2));
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Replaces the children of el. A control that had the focus and carries data-focus gets it back
 * after the redraw, so that polling never throws a keyboard user out of place.
 */
export function fill(el) {
  const active = document.activeElement;
  const key = active && el.contains(active) && active.dataset ? active.dataset.focus : undefined;
  el.replaceChildren();
  append(el, Array.prototype.slice.call(arguments, 1));
  if (key) {
    const again = el.querySelector('[data-focus="' + CSS.escape(key) + '"]');
    if (again) again.focus();
  }
  return el;
}

export function time(iso) {
  if (!iso) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: iso, title: iso }, new Date(iso).toLocaleString());
}

export function duration(ms) {
  if (ms === undefined || ms === null) return '—';
  if (ms < 1000) return Math.round(ms) + ' ms';
  const s = ms / 1000;
  return s < 120 ? s.toFixed(1) + ' s' : Math.round(s / 60) + ' min';
}

const TONE = {
  reachable: 'ok', completed: 'ok', ok: 'ok', 'in-sync': 'ok',
  running: 'info', queued: 'info', pending: 'info', 'not-provisioned': 'info', removed: 'info',
  'rate-limited': 'warn', 'awaiting-approval': 'warn', retrying: 'warn', degraded: 'warn',
  'auth-failed': 'bad', unavailable: 'bad', failed: 'bad',
};
export function tone(state) {
  return TONE[state] || 'info';
}
export function badge(state, label) {
  return h('span', { class: 'badge ' + tone(state) }, label || state);
}

export function kv(pairs) {
  const dl = h('dl', { class: 'kv' });
  for (const pair of pairs) dl.append(h('dt', null, pair[0]), h('dd', null, pair[1]));
  return dl;
}

/** A table with a caption; cells are text or nodes; numeric cells are right-aligned. */
export function table(caption, headers, rows, empty) {
  if (rows.length === 0) return h('p', { class: 'muted' }, empty || 'Nothing to show.');
  const head = h('tr', null, headers.map(function (name) {
    return typeof name === 'string'
      ? h('th', { scope: 'col' }, name)
      : h('th', { scope: 'col', class: name.num ? 'num' : null }, name.label);
  }));
  const body = rows.map(function (row) {
    return h('tr', null, row.map(function (cell) {
      return h('td', { class: typeof cell === 'number' ? 'num' : null }, cell);
    }));
  });
  return h('table', null, h('caption', null, caption), h('thead', null, head), h('tbody', null, body));
}

export function errorBox(error) {
  const problems = error && error.problems && error.problems.length
    ? h('ul', null, error.problems.map(function (p) { return h('li', null, p); }))
    : null;
  return h('div', { class: 'error', role: 'alert' }, (error && error.message) || String(error), problems);
}

/** Says something to screen readers (and the tests) through the polite live region. */
export function announce(message) {
  const live = document.getElementById('live');
  live.textContent = '';
  setTimeout(function () { live.textContent = message; }, 30);
}

export function heading(text) {
  return h('h1', { tabindex: '-1' }, text);
}
`;

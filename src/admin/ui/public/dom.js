// @ts-check
/** Browser module: building elements (text only, never HTML strings), formatting, announcements. */

/**
 * What h() and fill() take as children: nodes, text (numbers too), nested lists; null, undefined and
 * false are left out.
 *
 * @typedef {Node | string | number | boolean | null | undefined | Children} Child
 * @typedef {Child[]} Children
 * @typedef {Record<string, string | number | boolean | null | undefined | ((event: Event) => unknown)>} Props
 * @typedef {{ label: string; num?: boolean }} Header
 */

/**
 * What a view returns: refresh() is called every `every` ms while the view is shown; stop() when
 * the page leaves it (to close what it keeps open, such as a progress stream).
 *
 * @typedef {{ refresh?: () => Promise<unknown>; every?: number; stop?: () => void }} View
 */

/**
 * h('a', {href: '#/x', class: 'c', onclick: fn}, 'text', child…): data always goes in as text.
 *
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} [props]
 * @param {Child[]} children
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  const attrs = props || {};
  for (const name of Object.keys(attrs)) {
    const value = attrs[name];
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = String(value);
    else if (name.slice(0, 2) === 'on') {
      if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    } else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of children) {
    if (Array.isArray(child)) append(el, child);
    else if (child !== null && child !== undefined && child !== false)
      el.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Replaces the children of el. A control that had the focus and carries data-focus gets it back
 * after the redraw, so that polling never throws a keyboard user out of place.
 *
 * @template {Element} E
 * @param {E} el
 * @param {Child[]} children
 */
export function fill(el, ...children) {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && el.contains(active) ? active.dataset.focus : undefined;
  el.replaceChildren();
  append(el, children);
  if (key) {
    const again = el.querySelector('[data-focus="' + CSS.escape(key) + '"]');
    if (again instanceof HTMLElement) again.focus();
  }
  return el;
}

/** @param {string | null | undefined} iso */
export function time(iso) {
  if (!iso) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: iso, title: iso }, new Date(iso).toLocaleString());
}

/** @param {number | null | undefined} ms */
export function duration(ms) {
  if (ms === undefined || ms === null) return '—';
  if (ms < 1000) return Math.round(ms) + ' ms';
  const s = ms / 1000;
  return s < 120 ? s.toFixed(1) + ' s' : Math.round(s / 60) + ' min';
}

/** @type {Record<string, string>} */
const TONE = {
  reachable: 'ok',
  completed: 'ok',
  ok: 'ok',
  'in-sync': 'ok',
  running: 'info',
  queued: 'info',
  pending: 'info',
  'not-provisioned': 'info',
  removed: 'info',
  'rate-limited': 'warn',
  'awaiting-approval': 'warn',
  retrying: 'warn',
  degraded: 'warn',
  'auth-failed': 'bad',
  unavailable: 'bad',
  failed: 'bad',
  failing: 'bad',
  disabled: 'info',
};
/** @param {string} state */
export function tone(state) {
  return TONE[state] || 'info';
}
/**
 * @param {string} state
 * @param {string} [label]
 */
export function badge(state, label) {
  return h('span', { class: 'badge ' + tone(state) }, label || state);
}

/** @param {[string, Child][]} pairs */
export function kv(pairs) {
  const dl = h('dl', { class: 'kv' });
  for (const pair of pairs) dl.append(h('dt', null, pair[0]), h('dd', null, pair[1]));
  return dl;
}

/**
 * A table with a caption; cells are text or nodes; numeric cells are right-aligned.
 *
 * @param {string} caption
 * @param {(string | Header)[]} headers
 * @param {Child[][]} rows
 * @param {string} [empty]
 */
export function table(caption, headers, rows, empty) {
  if (rows.length === 0) return h('p', { class: 'muted' }, empty || 'Nothing to show.');
  const head = h(
    'tr',
    null,
    headers.map(function (name) {
      return typeof name === 'string'
        ? h('th', { scope: 'col' }, name)
        : h('th', { scope: 'col', class: name.num ? 'num' : null }, name.label);
    }),
  );
  const body = rows.map(function (row) {
    return h(
      'tr',
      null,
      row.map(function (cell) {
        return h('td', { class: typeof cell === 'number' ? 'num' : null }, cell);
      }),
    );
  });
  return h('table', null, h('caption', null, caption), h('thead', null, head), h('tbody', null, body));
}

/**
 * The text to show for a thrown value: its message if it has one.
 *
 * @param {unknown} error
 */
export function messageOf(error) {
  /** @type {{ message?: unknown }} */
  const e = typeof error === 'object' && error !== null ? error : {};
  return e.message ? String(e.message) : String(error);
}

/** @param {unknown} error an ApiError (with its problems), any other thrown value, or { message } */
export function errorBox(error) {
  /** @type {{ problems?: unknown }} */
  const e = typeof error === 'object' && error !== null ? error : {};
  const problems =
    Array.isArray(e.problems) && e.problems.length
      ? h(
          'ul',
          null,
          e.problems.map(function (p) {
            return h('li', null, String(p));
          }),
        )
      : null;
  return h('div', { class: 'error', role: 'alert' }, messageOf(error), problems);
}

/**
 * Says something to screen readers (and the tests) through the polite live region.
 *
 * @param {string} message
 */
export function announce(message) {
  const live = document.getElementById('live');
  if (!live) return;
  live.textContent = '';
  setTimeout(function () {
    live.textContent = message;
  }, 30);
}

/** @param {string} text */
export function heading(text) {
  return h('h1', { tabindex: '-1' }, text);
}

/**
 * Previous and Next through a recorded list, a page at a time.
 *
 * @param {{ key: string; offset: number; to: number; recorded: number; size: number }} at
 *   key names the buttons' focus (prev-key, next-key); to: the last item shown (1-based)
 * @param {(offset: number) => () => Promise<void>} go
 */
export function pager(at, go) {
  /** @param {string} label @param {boolean} disabled @param {number} target @param {string} focus */
  const button = function (label, disabled, target, focus) {
    return h(
      'button',
      { type: 'button', class: 'secondary', disabled: disabled, onclick: go(target), 'data-focus': focus },
      label,
    );
  };
  return h(
    'div',
    { class: 'row pager' },
    button('Previous', at.offset === 0, Math.max(0, at.offset - at.size), 'prev-' + at.key),
    button('Next', at.to >= at.recorded, at.to, 'next-' + at.key),
  );
}

/**
 * A page of one recorded list: its title with the total, how many it holds, the page's table, the
 * pager, and how many the record does not list.
 *
 * @param {{ key: string; title: string; count: string; unlisted: string; size: number }} list
 *   count: "One identity to create" or "12 identities to create"; unlisted: why the rest is not listed
 * @param {{ offset: number; total: number; recorded: number; items: unknown[] }} page
 * @param {(caption: string) => Child} tableOf the page's table, under this caption
 * @param {(offset: number) => () => Promise<void>} go
 * @returns {Child[]}
 */
export function listPage(list, page, tableOf, go) {
  const from = page.offset + 1;
  const to = page.offset + page.items.length;
  const unrecorded = page.total - page.recorded;
  const shown =
    page.recorded > page.items.length ? '; showing ' + from + '–' + to + ' of ' + page.recorded + '.' : '.';
  return [
    h('h3', null, list.title + ' (' + page.total + ')'),
    h('p', { class: 'muted' }, list.count, shown),
    page.items.length === 0 ? null : tableOf(list.title + ': ' + from + '–' + to + ' of ' + page.recorded),
    page.recorded <= list.size
      ? null
      : pager({ key: list.key, offset: page.offset, to: to, recorded: page.recorded, size: list.size }, go),
    unrecorded > 0 ? h('p', { class: 'muted' }, unrecorded + ' more are not listed: ' + list.unlisted) : null,
  ];
}

// @ts-check
/** Browser module: identities in permanent failure, filtered, paged, and retried. */
import { api, enc } from './api.js';
import { announce, errorBox, fill, h, heading, time } from './dom.js';

/** @import { Failure, FailureList, FailureRetry, FailureRetryBody, StoredError } from '../api-types.js' */
/** @import { Child, View } from './dom.js' */
/** @typedef {{ items: Failure[]; next: string | null; total: number }} FailurePage */

/**
 * @param {HTMLElement} container
 * @returns {Promise<View>}
 */
export async function failuresView(container) {
  const filters = failureFilters();
  const message = h('div');
  const list = h('div');
  /** @type {FailurePage} */
  const page = { items: [], next: null, total: 0 };

  /** @param {boolean} more */
  async function load(more) {
    /** @type {FailureList} */
    const answer = await api('GET', filters.query(more ? page.next : null));
    page.items = more ? page.items.concat(answer.items) : answer.items;
    page.next = answer.nextCursor;
    page.total = answer.total;
    fill(
      list,
      failureList(page, filters.active(), function () {
        load(true);
      }),
    );
  }
  /**
   * @param {FailureRetryBody} body
   * @param {string} what
   */
  function retry(body, what) {
    return retryFailures(body, what, message, async function () {
      await load(false);
      return page.items.length;
    });
  }
  const refresh = function () {
    load(false);
  };
  fill(
    container,
    heading('Failures'),
    h(
      'p',
      { class: 'muted' },
      'Identities the platform rejected (400/422). Fix the cause at the source, then retry.',
    ),
    filters.form(refresh),
    retryButtons({ matching: filters.matching, list, message, retry, refresh }),
    message,
    list,
  );
  await load(false);
  return {};
}

/** The kind and error code to list, as controls, as a query, and as a retry of all that match. */
function failureFilters() {
  const kind = h(
    'select',
    { id: 'failure-kind' },
    h('option', { value: '' }, 'all'),
    h('option', { value: 'user' }, 'users'),
    h('option', { value: 'group' }, 'groups'),
  );
  const code = h('input', {
    id: 'failure-code',
    type: 'text',
    placeholder: 'e.g. target_invalid_request',
    spellcheck: 'false',
  });
  return {
    /** @param {string | null} cursor */
    query: function (cursor) {
      const params = new URLSearchParams({ limit: '50' });
      if (kind.value) params.set('kind', kind.value);
      if (code.value.trim()) params.set('code', code.value.trim());
      if (cursor) params.set('cursor', cursor);
      return 'failures?' + params.toString();
    },
    active: function () {
      return Boolean(kind.value || code.value.trim());
    },
    /** @returns {FailureRetryBody} */
    matching: function () {
      /** @type {FailureRetryBody & { all: true }} */
      const body = { all: true };
      // The select offers nothing else.
      if (kind.value) body.kind = /** @type {'user' | 'group'} */ (kind.value);
      if (code.value.trim()) body.code = code.value.trim();
      return body;
    },
    /** @param {() => void} onFilter */
    form: function (onFilter) {
      return h(
        'form',
        {
          class: 'row',
          onsubmit: function (e) {
            e.preventDefault();
            onFilter();
          },
        },
        h('div', { class: 'field' }, h('label', { for: 'failure-kind' }, 'Kind'), kind),
        h('div', { class: 'field' }, h('label', { for: 'failure-code' }, 'Error code'), code),
        h('button', { type: 'submit', class: 'secondary' }, 'Filter'),
      );
    },
  };
}

/**
 * Retry selected, retry all matching, refresh.
 *
 * @param {{
 *   matching: () => FailureRetryBody;
 *   list: HTMLElement;
 *   message: HTMLElement;
 *   retry: (body: FailureRetryBody, what: string) => Promise<void>;
 *   refresh: () => void;
 * }} parts
 */
function retryButtons(parts) {
  /** @param {string} label @param {string | null} cls @param {() => void} onclick */
  const button = function (label, cls, onclick) {
    return h('button', { type: 'button', class: cls, onclick: onclick }, label);
  };
  return h(
    'div',
    { class: 'row' },
    button('Retry selected', null, function () {
      const keys = selectedKeys(parts.list);
      if (keys.length === 0) {
        fill(parts.message, errorBox({ message: 'Select the identities to retry first.' }));
        return;
      }
      parts.retry({ keys: keys }, 'selected');
    }),
    button('Retry all matching', 'secondary', function () {
      parts.retry(parts.matching(), 'matching');
    }),
    button('Refresh', 'secondary', parts.refresh),
  );
}

/** @param {HTMLElement} list */
function selectedKeys(list) {
  /** @type {NodeListOf<HTMLInputElement>} */
  const boxes = list.querySelectorAll('input[type=checkbox][data-key]:checked');
  return Array.from(boxes).flatMap(function (box) {
    return box.dataset.key ? [box.dataset.key] : [];
  });
}

/**
 * Asks for the retry, says how many were queued, then reloads the list every second for ten
 * seconds, or until it is empty.
 *
 * @param {FailureRetryBody} body
 * @param {string} what
 * @param {HTMLElement} message
 * @param {() => Promise<number>} reload resolves to the failures still listed
 */
async function retryFailures(body, what, message, reload) {
  try {
    /** @type {FailureRetry} */
    const answer = await api('POST', 'failures/retry', body);
    announce('Queued ' + answer.retried + ' ' + what + ' for retry');
    fill(
      message,
      h(
        'p',
        { role: 'status' },
        'Queued ' + answer.retried + ' for retry. A run that succeeds leaves this list.',
      ),
    );
    for (let i = 0; i < 10; i++) {
      await new Promise(function (resolve) {
        setTimeout(resolve, 1000);
      });
      if ((await reload()) === 0) break;
    }
  } catch (error) {
    fill(message, errorBox(error));
  }
}

/**
 * How many fail, the table to pick from, and the button for the next page.
 *
 * @param {FailurePage} page
 * @param {boolean} filtered
 * @param {() => void} more
 * @returns {Child[]}
 */
function failureList(page, filtered, more) {
  return [
    h('p', null, page.total + ' identities in failure' + (filtered ? '; showing those that match.' : '.')),
    page.items.length === 0 ? h('p', { class: 'muted' }, 'No failures.') : failureTable(page.items),
    page.next ? h('button', { type: 'button', class: 'secondary', onclick: more }, 'Load more') : null,
  ];
}

/** @param {Failure[]} items */
function failureTable(items) {
  return h(
    'table',
    null,
    h('caption', null, 'Permanent failures, newest first'),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['', 'identity', 'name', 'error', 'detail', 'failed'].map(function (n) {
          return h('th', { scope: 'col' }, n === '' ? h('span', { class: 'visually-hidden' }, 'select') : n);
        }),
      ),
    ),
    h('tbody', null, items.map(failureRow)),
  );
}

/** @param {Failure} f */
function failureRow(f) {
  /** @type {Partial<StoredError>} */
  const error = f.error || {};
  return h(
    'tr',
    null,
    h(
      'td',
      null,
      h('input', {
        type: 'checkbox',
        'data-key': f.key,
        id: 'pick-' + f.key,
        'aria-label': 'Select ' + f.key,
      }),
    ),
    h('td', null, h('a', { href: '#/identity/' + f.kind + '/' + enc(f.id) }, f.key)),
    h('td', null, f.name || '—'),
    h('td', null, error.code || '—', error.status ? ' (' + error.status + ')' : ''),
    h('td', null, error.detail || error.message || '—'),
    h('td', null, time(f.failedAt)),
  );
}

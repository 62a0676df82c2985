// @ts-check
/** Browser module: identities in permanent failure, filtered, paged, and retried. */
import { api, enc } from './api.js';
import { announce, errorBox, fill, h, heading, time } from './dom.js';

/** @import { Failure, FailureList, StoredError } from '../api-types.js' */
/** @import { View } from './dom.js' */
/** @typedef {{ all: true; kind?: string; code?: string }} RetryMatching */

/**
 * @param {HTMLElement} container
 * @returns {Promise<View>}
 */
export async function failuresView(container) {
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
  const message = h('div');
  const list = h('div');
  /** @type {Failure[]} */
  let items = [];
  /** @type {string | null} */
  let next = null;
  let total = 0;

  /** @param {string | null} cursor */
  function query(cursor) {
    const params = new URLSearchParams({ limit: '50' });
    if (kind.value) params.set('kind', kind.value);
    if (code.value.trim()) params.set('code', code.value.trim());
    if (cursor) params.set('cursor', cursor);
    return 'failures?' + params.toString();
  }
  /** @param {boolean} more */
  async function load(more) {
    /** @type {FailureList} */
    const page = await api('GET', query(more ? next : null));
    items = more ? items.concat(page.items) : page.items;
    next = page.nextCursor;
    total = page.total;
    render();
  }
  function selected() {
    /** @type {NodeListOf<HTMLInputElement>} */
    const boxes = list.querySelectorAll('input[type=checkbox][data-key]:checked');
    return Array.from(boxes).map(function (box) {
      return box.dataset.key;
    });
  }
  /**
   * @param {{ keys: (string | undefined)[] } | RetryMatching} body
   * @param {string} what
   */
  async function retry(body, what) {
    try {
      /** @type {{ retried: number }} */
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
        await load(false);
        if (items.length === 0) break;
      }
    } catch (error) {
      fill(message, errorBox(error));
    }
  }
  function render() {
    const rows = items.map(function (f) {
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
    });
    fill(
      list,
      h(
        'p',
        null,
        total +
          ' identities in failure' +
          (kind.value || code.value.trim() ? '; showing those that match.' : '.'),
      ),
      rows.length === 0
        ? h('p', { class: 'muted' }, 'No failures.')
        : h(
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
                  return h(
                    'th',
                    { scope: 'col' },
                    n === '' ? h('span', { class: 'visually-hidden' }, 'select') : n,
                  );
                }),
              ),
            ),
            h('tbody', null, rows),
          ),
      next
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: function () {
                load(true);
              },
            },
            'Load more',
          )
        : null,
    );
  }

  fill(
    container,
    heading('Failures'),
    h(
      'p',
      { class: 'muted' },
      'Identities the platform rejected (400/422). Fix the cause at the source, then retry.',
    ),
    h(
      'form',
      {
        class: 'row',
        onsubmit: function (e) {
          e.preventDefault();
          load(false);
        },
      },
      h('div', { class: 'field' }, h('label', { for: 'failure-kind' }, 'Kind'), kind),
      h('div', { class: 'field' }, h('label', { for: 'failure-code' }, 'Error code'), code),
      h('button', { type: 'submit', class: 'secondary' }, 'Filter'),
    ),
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        {
          type: 'button',
          onclick: function () {
            const keys = selected();
            if (keys.length === 0) {
              fill(message, errorBox({ message: 'Select the identities to retry first.' }));
              return;
            }
            retry({ keys: keys }, 'selected');
          },
        },
        'Retry selected',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: function () {
            /** @type {RetryMatching} */
            const body = { all: true };
            if (kind.value) body.kind = kind.value;
            if (code.value.trim()) body.code = code.value.trim();
            retry(body, 'matching');
          },
        },
        'Retry all matching',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: function () {
            load(false);
          },
        },
        'Refresh',
      ),
    ),
    message,
    list,
  );
  await load(false);
  return {};
}

// @ts-check
/**
 * Browser module: an identity's desired state beside the platform's copy, read from the platform
 * when the view opens, the attributes that differ (what the next run would change) marked.
 */
import { api, enc } from './api.js';
import { badge, errorBox, fill, h, time } from './dom.js';
import { named } from './changes.js';

/** @import { AttributeRow, MemberRow, PlatformCopy } from '../api-types.js' */

/**
 * A managed attribute's value as text: e-mails one per line, a name by its parts.
 *
 * @param {unknown} value
 * @returns {string}
 */
function text(value) {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value))
    return value
      .map(function (item) {
        /** @type {Record<string, unknown>} */
        const e =
          typeof item === 'object' && item !== null ? /** @type {Record<string, unknown>} */ (item) : {};
        return e.value !== undefined
          ? String(e.value) + (e.primary === true ? ' (primary)' : '')
          : text(item);
      })
      .join('\n');
  if (typeof value === 'object')
    return Object.entries(value)
      .map(function ([k, v]) {
        return k + ': ' + text(v);
      })
      .join('\n');
  return String(value);
}

/** @param {PlatformCopy} copy */
function attributesTable(copy) {
  const rows = copy.attributes.map(function (row) {
    const marked = copy.inDesiredState && row.differs;
    return h(
      'tr',
      { class: marked ? 'differs' : null, 'data-attribute': row.attribute },
      h('th', { scope: 'row' }, row.attribute),
      h('td', { class: 'value' }, copy.inDesiredState ? text(row.desired) : '—'),
      h('td', { class: 'value' }, text(row.platform)),
      h('td', null, marked ? badge('failed', 'differs') : badge('ok', 'same')),
    );
  });
  return h(
    'table',
    { class: 'compare' },
    h('caption', null, 'Managed attributes: desired state and platform'),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['attribute', 'desired state', 'platform', 'compared'].map((l) => h('th', { scope: 'col' }, l)),
      ),
    ),
    h('tbody', null, rows),
  );
}

/** @param {NonNullable<PlatformCopy['members']>} members */
function membersTable(members) {
  const rows = members.rows.map(function (m) {
    const where =
      m.desired && !m.platform ? 'missing on the platform' : m.platform && !m.desired ? 'not desired' : '';
    return h(
      'tr',
      { class: where ? 'differs' : null },
      h('td', null, m.id ? named('user', m.id, m.userName) : m.userName || '—'),
      h('td', null, h('code', { class: 'id' }, m.targetId || '—')),
      h('td', null, m.desired ? 'yes' : 'no'),
      h('td', null, m.platform ? 'yes' : 'no'),
      h('td', null, where ? badge('failed', where) : badge('ok', 'same')),
    );
  });
  return h(
    'table',
    { class: 'compare' },
    h(
      'caption',
      null,
      'Members: ' +
        members.desired +
        ' desired, ' +
        members.platform +
        ' on the platform; ' +
        members.missing +
        ' missing, ' +
        members.extra +
        ' not desired' +
        (members.rowsOmitted ? ' (first ' + members.rows.length + ' rows shown)' : ''),
    ),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['member (userName, id)', 'platform id', 'desired', 'on the platform', 'compared'].map((l) =>
          h('th', { scope: 'col' }, l),
        ),
      ),
    ),
    h('tbody', null, rows),
  );
}

/** @param {PlatformCopy} copy */
function render(copy) {
  if (copy.platform === 'not-linked')
    return h(
      'p',
      { class: 'muted' },
      'The bridge has no platform account for it yet (not created or matched there): nothing to compare.',
    );
  if (copy.platform === 'not-found')
    return h(
      'p',
      { role: 'alert' },
      'The platform has no resource with the recorded id ' +
        copy.targetId +
        ' (deleted there): the next run re-creates it if it is desired.',
    );
  const count = copy.differences.length;
  return [
    h(
      'p',
      { id: 'platform-verdict' },
      !copy.inDesiredState
        ? 'Not in the desired state: the bridge deprovisions a managed account as DEPROVISION says.'
        : count === 0
          ? 'The platform matches the desired state.'
          : 'Differs in ' +
            copy.differences.join(', ') +
            ': the next run changes ' +
            (count === 1 ? 'it' : 'them') +
            '.',
      ' Read ',
      time(copy.readAt),
      '.',
    ),
    attributesTable(copy),
    copy.members ? membersTable(copy.members) : null,
    h(
      'details',
      null,
      h('summary', null, "The platform's copy (JSON)"),
      h('pre', null, JSON.stringify(copy.resource, null, 2)),
    ),
  ];
}

/**
 * The comparison section; it reads the platform once when shown, and again on demand.
 *
 * @param {'user' | 'group'} kind
 * @param {string} id
 */
export function platformSection(kind, id) {
  const body = h('div', { id: 'platform-copy', 'aria-live': 'polite' });
  const load = async function () {
    fill(body, h('p', { class: 'muted' }, 'Reading the platform…'));
    try {
      /** @type {PlatformCopy} */
      const copy = await api(
        'GET',
        'identities/' + (kind === 'group' ? 'groups' : 'users') + '/' + enc(id) + '/platform',
      );
      fill(body, render(copy));
    } catch (error) {
      fill(body, errorBox(error));
    }
  };
  load();
  return [
    h('h2', null, 'Desired state and the platform'),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'secondary', onclick: load }, 'Read the platform again'),
    ),
    body,
  ];
}

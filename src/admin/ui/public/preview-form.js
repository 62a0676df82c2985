// @ts-check
/**
 * Browser module: the Preview view's form — the input to read, a candidate scope and mapping pasted
 * or read from a file — and starting its preview (a dry run that writes nothing).
 */
import { api, enc } from './api.js';
import { announce, errorBox, fill, h, messageOf } from './dom.js';

/** @import { InputStatus, Status, SyncStartBody, SyncStarted } from '../api-types.js' */

/**
 * What was typed, kept while the page lives: opening the result (its own address) or another view
 * and coming back keeps the candidate.
 */
const draft = { input: '', text: '' };

/** A candidate is a few expressions; a larger file is not one. */
const MAX_FILE_BYTES = 1024 * 1024;

const EXAMPLE = JSON.stringify(
  {
    scope: { users: 'memberOf("cn=eng,ou=groups,dc=example,dc=com")' },
    mapping: { users: { userName: 'uid + "@corp.example.com"' } },
  },
  null,
  2,
);

/** The inputs a preview can read: those read in full (their fullRead), the default one first. */
export async function readableInputs() {
  /** @type {Status} */
  const status = await api('GET', 'status');
  return status.inputs
    .filter(function (input) {
      return input.fullRead !== null;
    })
    .sort(function (a, b) {
      return Number(b.readByDefault) - Number(a.readByDefault);
    });
}

/**
 * The candidate as the API takes it: JSON. The configuration file is YAML, but the dashboard
 * serves no YAML parser, so a YAML candidate is refused here with a pointer to the CLI.
 *
 * @param {string} text
 * @returns {{ candidate: unknown } | { problem: { message: string; problems: string[] } }}
 */
export function parseCandidate(text) {
  const trimmed = text.trim();
  if (trimmed === '') return { problem: { message: 'Paste a candidate or choose its file.', problems: [] } };
  try {
    return { candidate: JSON.parse(trimmed) };
  } catch (error) {
    const yaml = trimmed[0] !== '{' && /^[\w.-]+\s*:/m.test(trimmed);
    return {
      problem: {
        message: 'The candidate is not JSON: ' + messageOf(error),
        problems: yaml
          ? [
              'It looks like YAML. This view reads JSON only; `scim-bridge preview --candidate FILE` reads YAML too.',
            ]
          : [],
      },
    };
  }
}

/**
 * Starts the preview and opens its result; a refusal (a candidate that does not compile: each
 * problem with its setting and position) is shown in `message`, and nothing was started.
 *
 * @param {SyncStartBody} body
 * @param {HTMLElement} message
 */
async function startPreview(body, message) {
  try {
    /** @type {SyncStarted} */
    const started = await api('POST', 'sync', body);
    announce('Preview ' + started.jobId + ' started');
    location.hash = '#/preview/' + enc(started.jobId);
  } catch (error) {
    fill(message, errorBox(error));
    announce('The preview was refused');
  }
}

/**
 * The input to read: a list of those read in full, or why there is none.
 *
 * @param {InputStatus[]} inputs
 */
function inputField(inputs) {
  const select = h(
    'select',
    { id: 'preview-input', disabled: inputs.length === 0 },
    inputs.map(function (input) {
      const source = input.fullRead ? ' (' + input.fullRead.source + ')' : '';
      return h('option', { value: input.input }, input.input + source);
    }),
  );
  if (inputs.some((input) => input.input === draft.input)) select.value = draft.input;
  draft.input = select.value;
  select.addEventListener('change', function () {
    draft.input = select.value;
  });
  return select;
}

/**
 * The candidate's text, and a file chooser that reads a file into it.
 *
 * @param {string} initial shown when nothing was typed yet
 * @param {HTMLElement} message
 */
function candidateFields(initial, message) {
  const text = h('textarea', {
    id: 'preview-candidate',
    rows: 12,
    spellcheck: 'false',
    placeholder: EXAMPLE,
    'aria-describedby': 'preview-candidate-help',
  });
  text.value = draft.text || initial;
  draft.text = text.value;
  text.addEventListener('input', function () {
    draft.text = text.value;
  });
  const file = h('input', { id: 'preview-file', type: 'file', accept: '.json,application/json' });
  file.addEventListener('change', function () {
    const chosen = file.files && file.files[0];
    if (chosen) readInto(chosen, text, message);
  });
  return { text: text, file: file };
}

/**
 * @param {File} file
 * @param {HTMLTextAreaElement} text
 * @param {HTMLElement} message
 */
async function readInto(file, text, message) {
  if (file.size > MAX_FILE_BYTES)
    return void fill(message, errorBox({ message: file.name + ' is over 1 MiB: not a candidate.' }));
  try {
    text.value = await file.text();
    draft.text = text.value;
    fill(message);
    announce('Read ' + file.name);
  } catch (error) {
    fill(message, errorBox({ message: file.name + ' could not be read: ' + messageOf(error) }));
  }
}

/**
 * The form: the input, the candidate (pasted, or read from a file), and the button that starts
 * its preview. `initial`: the candidate to show when nothing was typed (a preview's own, reopened).
 *
 * @param {string} initial
 */
export async function candidateForm(initial) {
  const inputs = await readableInputs();
  const message = h('div', { id: 'preview-message' });
  const select = inputField(inputs);
  const fields = candidateFields(initial, message);
  const onsubmit = function (/** @type {Event} */ event) {
    event.preventDefault();
    const parsed = parseCandidate(fields.text.value);
    if ('problem' in parsed) return void fill(message, errorBox(parsed.problem));
    fill(message);
    /** @type {SyncStartBody} */
    const body = { input: select.value, dryRun: true, candidate: parsed.candidate };
    return startPreview(body, message);
  };
  return h(
    'form',
    { id: 'preview-form', class: 'preview-form', onsubmit: onsubmit },
    h('div', { class: 'field' }, h('label', { for: 'preview-input' }, 'Input'), select),
    inputs.length === 0 ? h('p', { class: 'muted' }, NO_INPUT) : null,
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'preview-candidate' }, 'Candidate scope and mapping (JSON)'),
      h('p', { id: 'preview-candidate-help', class: 'muted' }, HELP),
      fields.text,
    ),
    h('div', { class: 'field' }, h('label', { for: 'preview-file' }, 'Or read it from a file'), fields.file),
    h('div', { class: 'row' }, h('button', { type: 'submit', disabled: inputs.length === 0 }, 'Preview')),
    message,
  );
}

const HELP =
  '{"scope": {…}, "mapping": {…}} as under directory: (or okta:) in the configuration file — see ' +
  'docs/scope-and-mapping.md. JSON only: the configuration file is YAML, but the admin API takes ' +
  'JSON and the dashboard has no YAML parser (`scim-bridge preview --candidate FILE` reads YAML). ' +
  'Nothing is written: the source is read as it is now, and every identity is mapped twice.';

const NO_INPUT =
  "No input can be read in full: configure a directory source (DIRECTORY_SOURCE) or Okta's API " +
  '(OKTA_API_TOKEN) to preview a scope and mapping.';

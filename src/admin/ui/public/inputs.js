// @ts-check
/** Browser module: the inputs on the overview — what each can do, and how fresh it is. */
import { badge, duration, h, table, time } from './dom.js';

/** @import { InputStatus } from '../api-types.js' */

/**
 * One row per input: its state, how it is read (push, full read, change reads), when it last heard
 * from its source, the newest change applied, how far behind it is, and missed hooks.
 *
 * @param {InputStatus[]} inputs
 */
export function inputsSection(inputs) {
  return [
    h('h2', null, 'Inputs'),
    table(
      'Inputs and their freshness',
      [
        'input',
        'state',
        'reads',
        'last read',
        'newest change',
        { label: 'behind', num: true },
        'missed hooks',
      ],
      inputs.map(function (input) {
        return [
          input.input,
          badge(input.state, input.detail ? input.state + ': ' + input.detail : input.state),
          reads(input),
          time(input.lastReadAt),
          time(input.newestChangeAt),
          input.lagSeconds === null ? '—' : duration(input.lagSeconds * 1000),
          input.missedHooks === null ? '—' : String(input.missedHooks),
        ];
      }),
      'No input is configured.',
    ),
  ];
}

/** @param {InputStatus} input */
function reads(input) {
  const ways = [];
  if (input.push) ways.push('push ' + input.push.path + (input.push.enabled ? '' : ' (off)'));
  if (input.fullRead) ways.push('full read (' + input.fullRead.source + ')');
  if (input.pull)
    ways.push(
      input.pull.read + ' every ' + input.pull.everySeconds + ' s (' + input.pull.watermarkKind + ')',
    );
  return ways.join(', ') || '—';
}

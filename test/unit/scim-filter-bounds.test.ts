import { describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import {
  FILTER_LIMITS,
  logicalOperands,
  matchesFilter,
  parseFilter,
  parsePath,
  someNode,
  type FilterNode,
} from '../../src/domain/scim-filter.js';

// Pure module: everything here is real. The parser caps a filter's size (issue 14, item 1), and
// evaluation never recurses along `and` / `or` chains, so that not even a tree built past the
// parser's caps can exhaust the stack.

const term = (i: number): FilterNode => ({
  kind: 'compare',
  path: { attribute: 'userName' },
  operator: 'eq',
  value: `user-${i}`,
});

/** `term(0) or term(1) or …`, left-leaning as the parser builds it, `count` terms deep. */
function orChain(count: number): FilterNode {
  let node = term(0);
  for (let i = 1; i < count; i += 1) node = { kind: 'or', left: node, right: term(i) };
  return node;
}

function refusal(parse: () => unknown): { scimType?: string; message: string } {
  try {
    parse();
  } catch (error) {
    if (isBridgeError(error, 'invalid_input')) return { scimType: error.scimType, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('filter bounds', () => {
  it('evaluates and walks a chain of 200,000 terms without exhausting the stack', () => {
    const chain = orChain(200_000);
    expect(matchesFilter(chain, { userName: 'USER-199999' })).toBe(true);
    expect(matchesFilter(chain, { userName: 'nobody' })).toBe(false);
    const both: FilterNode = { kind: 'and', left: chain, right: { kind: 'not', filter: chain } };
    expect(matchesFilter(both, { userName: 'user-5' })).toBe(false);
    expect(logicalOperands(chain, 'or')).toHaveLength(200_000);
    expect(logicalOperands(chain, 'or')[3]).toEqual(term(3));
    expect(someNode(chain, (node) => node.kind === 'compare' && node.value === 'user-199999')).toBe(true);
    expect(someNode(chain, (node) => node.kind === 'present')).toBe(false);
  });

  it('refuses a filter over the length limit before reading it, quoting only its start', () => {
    const text = Array.from({ length: 45_000 }, (_, i) => `userName eq "${i}"`).join(' or ');
    const { scimType, message } = refusal(() => parseFilter(text));
    expect(scimType).toBe('invalidFilter');
    expect(message).toContain(`longer than ${FILTER_LIMITS.maxLength} characters`);
    expect(message).toContain(`(${text.length} characters)`);
    expect(message.length).toBeLessThan(400);
    expect(refusal(() => parsePath(`members[${text}]`)).scimType).toBe('invalidPath');
  });

  it('refuses more terms than the limit and deeper nesting than the limit; takes both limits', () => {
    const terms = (count: number) => Array.from({ length: count }, (_, i) => `id eq "${i}"`).join(' or ');
    expect(logicalOperands(parseFilter(terms(FILTER_LIMITS.maxTerms)), 'or')).toHaveLength(
      FILTER_LIMITS.maxTerms,
    );
    expect(refusal(() => parseFilter(terms(FILTER_LIMITS.maxTerms + 1))).message).toContain(
      `more than ${FILTER_LIMITS.maxTerms} attribute expressions`,
    );
    const nest = (depth: number) => `${'('.repeat(depth)}id eq "x"${')'.repeat(depth)}`;
    expect(parseFilter(nest(FILTER_LIMITS.maxDepth))).toEqual(parseFilter('id eq "x"'));
    expect(refusal(() => parseFilter(nest(FILTER_LIMITS.maxDepth + 1))).message).toContain(
      `nested deeper than ${FILTER_LIMITS.maxDepth} levels`,
    );
    expect(refusal(() => parseFilter(nest(3_000))).scimType).toBe('invalidFilter');
    const nots = `${'not ('.repeat(FILTER_LIMITS.maxDepth)}id eq "x"${')'.repeat(FILTER_LIMITS.maxDepth)}`;
    expect(parseFilter(nots).kind).toBe('not');
    expect(refusal(() => parseFilter(`not (${nots})`)).message).toContain('nested deeper');
    // A value filter is a level too.
    const inside = `emails[${nest(FILTER_LIMITS.maxDepth - 1).replace('id', 'value')}]`;
    expect(parseFilter(inside).kind).toBe('valuePath');
    expect(refusal(() => parseFilter(`(${inside})`)).message).toContain('nested deeper');
  });
});

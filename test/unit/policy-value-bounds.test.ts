import { describe, expect, it } from 'vitest';
import { applyPolicy, compilePolicy, MAX_MAPPED_LENGTH } from '../../src/domain/identity-policy.js';
import type { EvaluationInput } from '../../src/domain/expression.js';

// Real: the expression language and the policy as the inputs apply them. What is checked: a
// mapping cannot make a value grow without bound — nested replace() calls, or a long source value —
// the identity is unmappable instead, with why, and the others map as before.
const person = (attributes: Record<string, string>): EvaluationInput => ({
  attribute: (name) => attributes[name] ?? '',
  values: (name) => (attributes[name] === undefined ? [] : [attributes[name] as string]),
  memberOf: () => false,
  variable: (name) => (name === 'groups' ? [] : (attributes[name] ?? '')),
});

function mapGivenName(expression: string, attributes: Record<string, string>) {
  const compiled = compilePolicy({ mapping: { users: { givenName: expression } } }, 'candidate');
  expect(compiled.problems).toEqual([]);
  const policy = compiled.policy?.users;
  if (!policy) throw new Error('no policy');
  return applyPolicy(policy, 'users', { id: 'u1', userName: 'ada@example.com' }, person(attributes));
}

describe('the length of a mapped value', () => {
  it('makes an identity unmappable when nested replace() calls multiply its length', () => {
    let expression = 'uid';
    for (let level = 0; level < 6; level++) expression = `replace(uid, "", ${expression})`;
    const mapped = mapGivenName(expression, { uid: 'ada.lovelace.example' });
    expect(mapped).toEqual({
      outcome: 'unmappable',
      reason: expect.stringMatching(
        /^mapping\.users\.givenName: .*replace: a (result|replacement) longer than 4096 characters/,
      ),
    });
  });

  it('makes an identity unmappable when its mapped value is over the bound, and maps one at it', () => {
    const long = mapGivenName('description', { description: 'x'.repeat(MAX_MAPPED_LENGTH + 1) });
    expect(long).toEqual({
      outcome: 'unmappable',
      reason: `mapping.users.givenName: a value of ${MAX_MAPPED_LENGTH + 1} characters, over ${MAX_MAPPED_LENGTH}`,
    });
    const atBound = mapGivenName('description', { description: 'x'.repeat(MAX_MAPPED_LENGTH) });
    expect(atBound).toMatchObject({
      outcome: 'mapped',
      item: { name: { givenName: 'x'.repeat(MAX_MAPPED_LENGTH) } },
    });
  });

  it('still replaces as before within the bounds', () => {
    expect(mapGivenName('replace(uid, "[.]", " ")', { uid: 'ada.lovelace' })).toMatchObject({
      outcome: 'mapped',
      item: { name: { givenName: 'ada lovelace' } },
    });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import { normaliseResource } from '../../src/sources/scim/dialect.js';
import { planMembership } from '../../src/sources/scim/group-membership.js';
import { listRequestFromQuery } from '../../src/sources/scim/list-request.js';
import { applyPatch } from '../../src/sources/scim/patch-apply.js';
import { parsePatchRequest } from '../../src/sources/scim/patch-request.js';
import { coerceResource } from '../../src/sources/scim/resource-coerce.js';
import { GROUP_SPEC, USER_SPEC } from '../../src/sources/scim/scim-schema.js';
import { userFromScim } from '../../src/sources/scim/user-resource.js';
import { seededRandom, testSeed } from '../support/random.js';

// Pure, property-based: whatever a client sends, the SCIM server's request handling either
// succeeds or raises the 400 it answers (BridgeError invalid_input) — never a crash (a 500).

const seed = testSeed();

/** Runs `task` and fails the property only for errors other than a 400. */
function onlyClientErrors(task: () => unknown): boolean {
  try {
    task();
    return true;
  } catch (error) {
    if (isBridgeError(error, 'invalid_input')) return true;
    throw error;
  }
}

const attributeNames = fc.constantFrom(
  'userName',
  'USERNAME',
  'name',
  'name.givenName',
  'emails',
  'emails[type eq "work"].value',
  'active',
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager',
  'phoneNumbers',
  'members',
  'members[value eq "x"]',
  'id',
  'meta',
  'groups',
  'password',
  'roles',
  'unknown',
  '__proto__',
  'a[b',
  '',
);
const values = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('True', 'False', null, [], [{ value: 'x' }]),
);
const operation = fc.record(
  {
    op: fc.oneof(fc.constantFrom('add', 'Replace', 'REMOVE', 'merge'), fc.jsonValue({ maxDepth: 1 })),
    path: attributeNames,
    value: values,
  },
  { requiredKeys: [] },
);
const patchBody = fc.oneof(
  fc.record({
    schemas: fc.constant(['urn:ietf:params:scim:api:messages:2.0:PatchOp']),
    Operations: fc.array(operation, { maxLength: 4 }),
  }),
  fc.jsonValue({ maxDepth: 3 }),
);
const resourceBody = fc.dictionary(attributeNames, values, { maxKeys: 6 });

describe('odd requests', () => {
  it('a POST or PUT body never crashes the checks', () => {
    fc.assert(
      fc.property(resourceBody, (body) =>
        onlyClientErrors(() =>
          userFromScim('id', coerceResource(USER_SPEC, normaliseResource(USER_SPEC, body))),
        ),
      ),
      { seed, numRuns: 300 },
    );
  });

  it('a PATCH body never crashes the engine, for users and for groups', () => {
    const current = {
      userName: 'a@example.com',
      emails: [{ value: 'a@example.com', type: 'work' }],
      active: true,
    };
    fc.assert(
      fc.property(patchBody, (body) =>
        onlyClientErrors(() => {
          coerceResource(USER_SPEC, applyPatch(USER_SPEC, current, parsePatchRequest(USER_SPEC, body)));
          const operations = parsePatchRequest(GROUP_SPEC, body);
          planMembership(
            operations.filter((op) => op.path.attribute.toLowerCase() === 'members'),
            ['x', 'y'],
          );
        }),
      ),
      { seed, numRuns: 300 },
    );
    // Nothing a client sends reaches Object.prototype (a `__proto__` key included).
    expect(Object.keys(Object.prototype)).toEqual([]);
  });

  it('list parameters never crash', () => {
    const random = seededRandom(seed);
    const texts = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'userName eq "a\\"b"',
        'emails[type eq "work"].value eq "x"',
        'not (active eq true)',
        '(((',
      ),
    );
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('filter', 'startIndex', 'count', 'attributes', 'excludedAttributes'),
          texts,
        ),
        (query) =>
          onlyClientErrors(() => listRequestFromQuery(random() < 0.5 ? USER_SPEC : GROUP_SPEC, query)),
      ),
      { seed, numRuns: 300 },
    );
  });
});

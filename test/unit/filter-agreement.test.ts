import { describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import { matchesFilter, parseFilter } from '../../src/domain/scim-filter.js';
import { matchesFilter as targetMatches } from '../../reference-target/src/filter-tester.js';
import { isScimError } from '../../reference-target/src/target-errors.js';
import { parseTargetFilter } from '../../reference-target/src/target-filter.js';

// One corpus of SCIM filters (RFC 7644 §3.4.2.2) through both implementations: the bridge's own
// (src/domain/scim-filter*.ts) and the reference target's (scim2-parse-filter behind its adapter).
// They share no code, so agreeing here, resource by resource, is what lets a test against the
// target vouch for the bridge. Both are real and pure; nothing is faked.

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

const RESOURCES: Record<string, unknown> = {
  ada: {
    schemas: [CORE_USER, ENTERPRISE],
    id: 'A-1',
    externalId: 'Ext-1',
    userName: 'Ada@Example.com',
    displayName: 'Ada Lovelace',
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [
      { value: 'ada@work.example', type: 'work', primary: true },
      { value: 'ada@home.example', type: 'home' },
    ],
    active: true,
    loginCount: 42,
    title: '',
    meta: { created: '2024-01-02T03:04:05.000Z', lastModified: '2024-06-01T00:00:00Z' },
    [ENTERPRISE]: { employeeNumber: '701984', manager: { value: 'M-9', displayName: 'Boss' } },
  },
  bob: {
    schemas: [CORE_USER],
    id: 'b-2',
    userName: 'bob@example.org',
    active: false,
    emails: [],
    nickName: null,
    loginCount: -3,
    meta: { created: '2023-12-31T23:00:00-02:00', lastModified: '2024-01-01T00:59:59.999+01:00' },
  },
  quoted: {
    schemas: [CORE_USER],
    id: 'q-3',
    userName: 'o"brien\\x',
    displayName: 'Zoë',
    emails: [{ value: 'Q@WORK.example', type: 'Work' }, { value: 'q@other.example' }],
    active: true,
    meta: { created: '2024-06-01T00:00:00Z', lastModified: '2024-06-01T00:00:00Z' },
  },
  group: {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    id: 'G-1',
    externalId: 'g-ext',
    displayName: 'Engineering',
    members: [
      { value: 'A-1', display: 'Ada@Example.com' },
      { value: 'b-2', display: 'bob@example.org' },
    ],
    meta: { created: '2024-02-02T00:00:00Z', lastModified: '2024-02-03T00:00:00Z' },
  },
};

/** RFC 7643 §4: id and externalId are caseExact, as are members' ids; the rest compares in any case. */
const CASE_EXACT = new Set([
  'id',
  'externalid',
  'members.value',
  `${ENTERPRISE.toLowerCase()}:employeenumber`,
]);
const caseExact = (key: string): boolean => CASE_EXACT.has(key);

const CORPUS: readonly string[] = [
  // every attribute operator (RFC 7644 §3.4.2.2, table 3)
  'userName eq "ada@example.com"',
  'userName ne "ada@example.com"',
  'userName co "EXAMPLE"',
  'userName sw "ada@"',
  'userName ew ".COM"',
  'userName gt "b"',
  'userName ge "bob@example.org"',
  'userName lt "B"',
  'userName le "ADA@EXAMPLE.COM"',
  'title pr',
  'nickName pr',
  'name pr',
  'emails pr',
  'displayName pr',
  // case of attribute names and operators; caseExact attributes
  'USERNAME EQ "ADA@EXAMPLE.COM"',
  'Name.GivenName Eq "ada"',
  'externalId eq "ext-1"',
  'externalId eq "Ext-1"',
  'id eq "a-1"',
  'ID eq "A-1"',
  // logical operators, precedence and parentheses (table 4, 5)
  'userName eq "x" or active eq true',
  'userName eq "x" and active eq true',
  'not (userName eq "x")',
  'not(active eq true)',
  'userName eq "x" or userName sw "bob" and active eq false',
  '(userName eq "x" or userName sw "bob") and active eq false',
  'userName sw "a" or userName sw "b" and active eq true',
  'not (active eq true) and userName pr',
  'active eq true and not (emails pr) or displayName co "zo"',
  'USERNAME SW "A" AND NOT (ACTIVE EQ FALSE) OR DISPLAYNAME PR',
  '((userName pr))',
  // value paths, multi-valued attributes matched by any value
  'emails[type eq "work" and value co "@"]',
  'emails[type eq "home" and primary eq true]',
  'emails[type eq "work" or type eq "home"]',
  'emails[not (type eq "work")]',
  'emails[value ew ".example" and not (primary pr)]',
  'emails[type pr]',
  'emails.value eq "ADA@home.example"',
  'emails.type eq "work"',
  'emails.type ne "work"',
  'emails.primary eq true',
  'emails co "home.example"',
  'emails eq "q@other.example"',
  'members[value eq "A-1"]',
  'members[value eq "a-1"]',
  'members.value eq "b-2"',
  'members.display co "ADA"',
  'schemas eq "urn:ietf:params:scim:schemas:core:2.0:User"',
  `schemas eq "${ENTERPRISE}"`,
  // sub-attributes and dates (meta.lastModified is a dateTime: chronological order)
  'name.familyName eq "lovelace"',
  'name.familyName gt "K" and name.familyName lt "M"',
  'name.middleName pr',
  'meta.lastModified gt "2024-05-31T23:59:59+00:00"',
  'meta.lastModified lt "2024-01-01T00:00:00Z"',
  'meta.created ge "2024-01-02T03:04:05Z"',
  'meta.created le "2024-01-01T01:00:00+00:00"',
  'meta.lastModified eq "2024-06-01T00:00:00Z"',
  // booleans, numbers and null (RFC 7643 §2.5: unassigned is null)
  'active eq true',
  'active eq false',
  'active ne true',
  'active eq "true"',
  'loginCount gt 41 and loginCount le 42',
  'loginCount lt 0',
  'loginCount ge -3.5',
  'loginCount eq 4.2e1',
  'loginCount eq "42"',
  'loginCount co "4"',
  '(loginCount gt -5 and loginCount lt -1)',
  'nickName eq null',
  'title eq null',
  'userName eq null',
  'userName ne null',
  'emails eq null',
  'displayName ne "x"',
  // string escapes (compValue is a JSON string)
  String.raw`userName eq "o\"brien\\x"`,
  String.raw`userName co "\\"`,
  String.raw`displayName eq "Zo\u00EB"`,
  String.raw`userName eq "o\"brien" or displayName eq "zoë"`,
  // URN-qualified attribute names (RFC 7644 §3.10)
  `${CORE_USER}:userName eq "ada@example.com"`,
  `${CORE_USER}:name.givenName sw "A"`,
  `${ENTERPRISE}:employeeNumber eq "701984"`,
  `${ENTERPRISE.toLowerCase()}:EMPLOYEENUMBER eq "701984"`,
  `${ENTERPRISE}:manager.value eq "M-9"`,
  `${ENTERPRISE}:manager.displayName eq "boss"`,
  `${ENTERPRISE}:manager pr`,
  `${ENTERPRISE}:manager eq "m-9"`,
  // missing attributes
  'nickName eq "x"',
  'nickName ne "x"',
  'nickName.sub gt "x"',
  'phoneNumbers[type eq "work"]',
  'x-custom_attr pr',
  // an attribute named like a keyword
  'not pr',
  'and eq "x" or or pr',
];

/** Filters outside the grammar of RFC 7644 §3.4.2.2: both must refuse them with invalidFilter. */
const REFUSED: readonly string[] = [
  '',
  'userName',
  'userName eq',
  'userName eq ada',
  'userName xx "a"',
  'userName eq "a" and',
  'userName eq "a" userName eq "b"',
  '(userName eq "a"',
  'userName eq "a")',
  'not userName eq "a"',
  'userName eq "open',
  String.raw`userName eq "bad \q escape"`,
  'userName eq 01',
  'userName co 5',
  'active gt true',
  'title lt null',
  'emails[type eq "work"',
  'emails[type eq "work"].value eq "x"',
  'emails[type[value eq "x"] eq "y"]',
  'name.givenName[value eq "x"]',
  'name.givenName.x eq "a"',
  '1abc eq "a"',
  'urn:x eq "a"',
];

function bridgeVerdicts(filter: string): boolean[] {
  const node = parseFilter(filter);
  return Object.values(RESOURCES).map((resource) => matchesFilter(node, resource, { caseExact }));
}

function targetVerdicts(filter: string): boolean[] {
  const node = parseTargetFilter(filter);
  return Object.values(RESOURCES).map((resource) => targetMatches(node, resource, { caseExact }));
}

function refusalOf(parse: () => unknown): string | undefined {
  try {
    parse();
  } catch (error) {
    if (isBridgeError(error, 'invalid_input')) return error.scimType;
    if (isScimError(error) && error.status === 400) return error.scimType;
    throw error;
  }
  return undefined;
}

describe('the bridge and the reference target evaluate filters alike', () => {
  it('has a corpus of at least sixty filters', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CORPUS)('%s', (filter) => {
    const names = Object.keys(RESOURCES);
    const bridge = Object.fromEntries(bridgeVerdicts(filter).map((verdict, i) => [names[i], verdict]));
    const target = Object.fromEntries(targetVerdicts(filter).map((verdict, i) => [names[i], verdict]));
    expect(target).toEqual(bridge);
  });

  it.each(REFUSED)('both refuse %j with invalidFilter', (filter) => {
    expect(refusalOf(() => parseFilter(filter))).toBe('invalidFilter');
    expect(refusalOf(() => parseTargetFilter(filter))).toBe('invalidFilter');
  });
});

import { describe, expect, it } from 'vitest';
import { attributeKey } from '../src/attribute-path.js';
import { matchesFilter } from '../src/filter-tester.js';
import { resolvePatchPath } from '../src/patch-path.js';
import { GROUP_RESOURCE_SCHEMA, USER_RESOURCE_SCHEMA } from '../src/resource-schemas.js';
import { isScimError } from '../src/target-errors.js';
import { parseTargetFilter } from '../src/target-filter.js';

// The target's filters and PATCH paths (RFC 7644 §3.4.2.2, §3.5.2): scim2-parse-filter behind the
// target's adapter, pure functions; nothing is faked. The HTTP behaviour built on it is covered by
// list.test.ts, groups.test.ts and patch.test.ts.

const ada = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  id: 'Id-1',
  externalId: 'Ext-1',
  userName: 'Ada@Example.com',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [
    { value: 'ada@work.example', type: 'work', primary: true },
    { value: 'ada@home.example', type: 'home' },
  ],
  active: true,
  nickName: '',
  title: null,
  groups: [],
  loginCount: 7,
  meta: { created: '2024-03-01T10:00:00.000Z', lastModified: '2024-03-02T10:00:00Z' },
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { employeeNumber: 'E-7' },
};

const CASE_EXACT = new Set(['id', 'externalid', 'emails.type']);
const caseExact = (key: string): boolean => CASE_EXACT.has(key);

function matches(filter: string): boolean {
  return matchesFilter(parseTargetFilter(filter), ada, { caseExact });
}

function syntaxErrorOf(parse: () => unknown): { scimType: string | undefined; detail: string } {
  try {
    parse();
  } catch (error) {
    if (isScimError(error) && error.status === 400) return { scimType: error.scimType, detail: error.detail };
    throw error;
  }
  throw new Error('expected a syntax error');
}

describe('filter evaluation', () => {
  it.each([
    ['userName eq "ada@example.com"', true],
    ['USERNAME EQ "ADA@EXAMPLE.COM"', true],
    ['externalId eq "Ext-1"', true],
    ['externalId eq "ext-1"', false],
    ['id eq "id-1"', false],
    ['userName ne "bob@example.com"', true],
    ['userName ne "ada@example.com"', false],
    ['displayName ne "x"', true],
    ['userName co "@EXAMPLE"', true],
    ['userName sw "ada@"', true],
    ['userName ew ".com"', true],
    ['userName ew ".org"', false],
    ['userName gt "b"', false],
    ['userName lt "B"', true],
    ['userName ge "ADA@EXAMPLE.COM"', true],
    ['name.familyName eq "lovelace"', true],
    ['name.givenName pr', true],
    ['name.middleName pr', false],
    ['nickName pr', false],
    ['title pr', false],
    ['groups pr', false],
    ['emails pr', true],
    ['emails.value eq "ada@home.example"', true],
    ['emails.type eq "Work"', false],
    ['emails.type ne "work"', true],
    ['emails[type eq "work" and primary eq true]', true],
    ['emails[type eq "home" and primary eq true]', false],
    ['emails[type eq "home" and value co "@work"]', false],
    ['emails[not (type eq "work")]', true],
    ['emails[not (type eq "work" or type eq "home")]', false],
    ['emails[value ew "home.example"]', true],
    ['emails eq "ada@work.example"', true],
    ['emails co "HOME.example"', true],
    ['schemas eq "urn:ietf:params:scim:schemas:core:2.0:User"', true],
    ['active eq true', true],
    ['active eq TRUE', true],
    ['active eq false', false],
    ['active ne false', true],
    ['loginCount gt 6', true],
    ['loginCount ge 7.0', true],
    ['loginCount lt 7', false],
    ['loginCount gt -1 and loginCount lt 8', true],
    ['loginCount eq "7"', false],
    ['loginCount co "7"', false],
    ['displayName eq null', true],
    ['title eq null', true],
    ['userName eq null', false],
    ['userName ne null', true],
    ['meta.created gt "2024-03-01T09:59:59Z"', true],
    ['meta.created lt "2024-03-01T11:00:00+02:00"', false],
    ['meta.lastModified ge "2024-03-02T10:00:00.000Z"', true],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "ada@example.com"', true],
    ['urn:ietf:params:scim:schemas:core:2.0:User:name.givenName sw "A"', true],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "e-7"', true],
    ['not (userName eq "ada@example.com")', false],
    ['userName eq "ada@example.com" or userName eq "x" and active eq false', true],
    ['(userName eq "x" or userName eq "ada@example.com") and active eq true', true],
    ['userName eq "x" or not (active eq false)', true],
    ['not pr', false],
  ])('%s → %s', (filter, expected) => {
    expect(matches(filter)).toBe(expected);
  });

  it('asks caseExact inside a value filter with the multi-valued attribute in front', () => {
    const asked: string[] = [];
    const filter = parseTargetFilter('emails[type eq "home"] and name.givenName eq "ada"');
    const caseExactAsked = (key: string): boolean => {
      asked.push(key);
      return false;
    };
    expect(matchesFilter(filter, ada, { caseExact: caseExactAsked })).toBe(true);
    expect(asked).toEqual(['emails.type', 'name.givenname']);
  });

  it('names attributes the way caseExact rules and indexes know them', () => {
    expect(attributeKey({ attribute: 'userName' })).toBe('username');
    expect(attributeKey({ attribute: 'value' }, 'members')).toBe('members.value');
    expect(
      attributeKey({ schema: 'urn:ietf:params:scim:schemas:core:2.0:Group', attribute: 'displayName' }),
    ).toBe('displayname');
    expect(
      attributeKey({
        schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
        attribute: 'manager',
        subAttribute: 'value',
      }),
    ).toBe('urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:manager.value');
  });

  it('decodes compValue strings as JSON strings, so escaped quotes and backslashes match', () => {
    const tricky = { userName: 'o"brien\\x', displayName: 'Zoë', title: '\\' };
    const match = (filter: string): boolean => matchesFilter(parseTargetFilter(filter), tricky);
    expect(match(`userName eq ${JSON.stringify(tricky.userName)}`)).toBe(true);
    expect(match('displayName eq "Zo\\u00EB"')).toBe(true);
    expect(match('userName eq "o\\"brien\\\\x" and displayName pr')).toBe(true);
    expect(match('title eq "\\\\" and not (userName eq "o\\"brien")')).toBe(true);
  });
});

describe('filter syntax errors: 400 invalidFilter naming the filter', () => {
  it.each([
    ['', 'empty'],
    ['userName eq ada', 'ada'],
    ['userName eq', 'EOT'],
    ['userName', 'userName'],
    ['userName xx "a"', 'xx'],
    ['userName eq "a" and', 'EOT'],
    ['userName eq "a" userName eq "b"', 'unexpected'],
    ['(userName eq "a"', "expected ')'"],
    ['userName eq "a")', '[)]'],
    ['not userName eq "a"', '"not" must be followed'],
    ['userName eq "open', 'not closed'],
    ['userName eq "bad \\q escape"', 'not a valid JSON string'],
    ['userName co 5', 'needs a string'],
    ['active gt true', 'cannot order'],
    ['title lt null', 'cannot order'],
    ['emails[type eq "work"', "expected ']'"],
    ['emails[type[value eq "x"] eq "y"]', "expected ']'"],
    ['emails[type eq "work"].value eq "x"', 'cannot be followed by a sub-attribute'],
    ['name.givenName[value eq "x"]', 'not a sub-attribute'],
    ['name.given.more eq "x"', 'not an attribute path'],
    ['1abc eq "x"', 'not an attribute path'],
    ['urn:x eq "a"', 'not an attribute path'],
  ])('%j (%s)', (filter, problem) => {
    const error = syntaxErrorOf(() => parseTargetFilter(filter));
    expect(error.scimType).toBe('invalidFilter');
    expect(error.detail).toContain(JSON.stringify(filter));
    expect(error.detail).toContain(problem);
  });
});

describe('PATCH paths', () => {
  it('resolves attrPath, attrPath with a sub-attribute, valuePath and valuePath with a sub-attribute', () => {
    const user = (path: string) => resolvePatchPath(path, USER_RESOURCE_SCHEMA, false);
    expect(user('ACTIVE')).toMatchObject({ attribute: { name: 'active' } });
    expect(user('name.familyName')).toMatchObject({
      attribute: { name: 'name' },
      subAttribute: { name: 'familyName' },
    });
    expect(resolvePatchPath('members[value eq "u-1"]', GROUP_RESOURCE_SCHEMA, false)).toMatchObject({
      attribute: { name: 'members' },
      valueFilter: { op: 'eq', attrPath: 'value', compValue: 'u-1' },
    });
    expect(user('emails[type eq "work"].value')).toMatchObject({
      attribute: { name: 'emails' },
      subAttribute: { name: 'value' },
      valueFilter: { op: 'eq', attrPath: 'type' },
    });
    expect(user('urn:ietf:params:scim:schemas:core:2.0:User:name.givenName')).toMatchObject({
      attribute: { name: 'name' },
      subAttribute: { name: 'givenName' },
    });
    expect(resolvePatchPath('members.$ref', GROUP_RESOURCE_SCHEMA, false)).toMatchObject({
      attribute: { name: 'members' },
      subAttribute: { name: '$ref' },
    });
  });

  it.each([
    ['', 'not [URN:]attribute'],
    ['emails[type eq', 'not [URN:]attribute'],
    ['emails[type eq "work"].', 'malformed sub-attribute'],
    ['emails[type eq "work"] extra', 'not [URN:]attribute'],
    ['name..givenName', 'not [URN:]attribute'],
    ['(active)', 'not [URN:]attribute'],
    ['emails[type eq work]', 'not json'],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager', 'not an attribute of User'],
  ])('refuses %j with 400 invalidPath (%s)', (path, problem) => {
    const error = syntaxErrorOf(() => resolvePatchPath(path, USER_RESOURCE_SCHEMA, false));
    expect(error.scimType).toBe('invalidPath');
    expect(error.detail).toContain(problem);
  });
});

import { describe, expect, it } from 'vitest';
import { isBridgeError } from '../../src/domain/errors.js';
import {
  equalityLookup,
  formatFilterString,
  matchesFilter,
  parseFilter,
  parsePath,
  type LogicalNode,
} from '../../src/domain/scim-filter.js';

// Pure module: everything here is real, nothing is faked.

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

const ada = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE],
  id: 'A-1',
  externalId: 'Ext-1',
  userName: 'Ada@Example.com',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [
    { value: 'ada@work.example', type: 'work', primary: true },
    { value: 'ada@home.example', type: 'home' },
  ],
  active: true,
  loginCount: 42,
  title: '',
  meta: { created: '2024-01-02T03:04:05.000Z', lastModified: '2024-06-01T00:00:00Z' },
  [ENTERPRISE]: { employeeNumber: '701984', manager: { value: 'M-9' } },
};

function matches(filter: string, resource: unknown = ada, caseExact?: (path: string) => boolean): boolean {
  return matchesFilter(parseFilter(filter), resource, caseExact === undefined ? {} : { caseExact });
}

function syntaxErrorOf(parse: () => unknown): { message: string; scimType: string | undefined } {
  try {
    parse();
  } catch (error) {
    if (isBridgeError(error, 'invalid_input')) return { message: error.message, scimType: error.scimType };
    throw error;
  }
  throw new Error('expected a syntax error');
}

describe('parseFilter', () => {
  it('parses an attribute comparison', () => {
    expect(parseFilter('userName eq "ada"')).toEqual({
      kind: 'compare',
      path: { attribute: 'userName' },
      operator: 'eq',
      value: 'ada',
    });
  });

  it('binds not tighter than and, and and tighter than or (RFC 7644 §3.4.2.2)', () => {
    const node = parseFilter('a pr or b pr and not (c pr)');
    expect(node).toEqual({
      kind: 'or',
      left: { kind: 'present', path: { attribute: 'a' } },
      right: {
        kind: 'and',
        left: { kind: 'present', path: { attribute: 'b' } },
        right: { kind: 'not', filter: { kind: 'present', path: { attribute: 'c' } } },
      },
    });
  });

  it('lets parentheses override precedence', () => {
    const node = parseFilter('(a pr or b pr) and c pr');
    expect(node.kind).toBe('and');
    expect((node as LogicalNode).left.kind).toBe('or');
  });

  it('reads operators, logical words and literals case-insensitively', () => {
    expect(parseFilter('userName EQ "x" AND active Eq TRUE OR nickName PR')).toEqual(
      parseFilter('userName eq "x" and active eq true or nickName pr'),
    );
  });

  it('decodes JSON string escapes', () => {
    const node = parseFilter(String.raw`userName eq "a\"b\\c \u00e9\n"`);
    expect(node).toMatchObject({ value: 'a"b\\c é\n' });
  });

  it('reads numbers, true, false and null', () => {
    expect(parseFilter('n gt -1.5e2')).toMatchObject({ value: -150 });
    expect(parseFilter('b eq false')).toMatchObject({ value: false });
    expect(parseFilter('x eq null')).toMatchObject({ value: null });
  });

  it('reads sub-attributes, URN-qualified paths and value paths', () => {
    expect(parseFilter('name.givenName sw "A"')).toMatchObject({
      path: { attribute: 'name', subAttribute: 'givenName' },
    });
    expect(parseFilter(`${ENTERPRISE}:employeeNumber eq "1"`)).toMatchObject({
      path: { schema: ENTERPRISE, attribute: 'employeeNumber' },
    });
    expect(parseFilter(`${ENTERPRISE}:manager.value eq "1"`)).toMatchObject({
      path: { schema: ENTERPRISE, attribute: 'manager', subAttribute: 'value' },
    });
    expect(parseFilter('emails[type eq "work" and value co "@x"]')).toMatchObject({
      kind: 'valuePath',
      path: { attribute: 'emails' },
      filter: { kind: 'and' },
    });
  });

  it('accepts an attribute named like a keyword where an operator follows', () => {
    expect(parseFilter('not pr')).toEqual({ kind: 'present', path: { attribute: 'not' } });
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['userName', 'operator'],
    ['userName eq', 'value'],
    ['userName eq ada', 'quoted string'],
    ['userName xx "a"', 'unknown operator "xx"'],
    ['userName eq "a', 'unterminated string'],
    ['userName eq "\\x"', 'malformed string'],
    ['(userName eq "a"', 'expected ")"'],
    ['userName eq "a")', 'unexpected ")"'],
    ['userName eq "a" and', 'found the end of input'],
    ['userName eq "a" userName eq "b"', 'unexpected "userName"'],
    ['not userName eq "a"', 'parenthesised'],
    ['emails[type eq "work"', 'expected "]"'],
    ['emails[type[value eq "x"] eq "y"]', 'nested'],
    ['emails[type eq "work"].value eq "x"', 'unexpected'],
    ['name.givenName.x eq "a"', 'malformed attribute path'],
    ['1abc eq "a"', 'malformed attribute path'],
    ['urn:x eq "a"', 'malformed'],
    ['title co 1', 'compares strings only'],
    ['active gt true', 'cannot compare'],
    ['title lt null', 'cannot compare'],
  ])('rejects %j with invalidFilter naming the problem (%s)', (filter, hint) => {
    const { message, scimType } = syntaxErrorOf(() => parseFilter(filter));
    expect(scimType).toBe('invalidFilter');
    expect(message).toContain(hint);
  });
});

describe('matchesFilter', () => {
  it('compares strings case-insensitively unless the attribute is caseExact (RFC 7643 §2.2)', () => {
    expect(matches('userName eq "ada@example.com"')).toBe(true);
    expect(matches('externalId eq "ext-1"')).toBe(true);
    expect(matches('externalId eq "ext-1"', ada, (path) => path === 'externalid')).toBe(false);
    expect(matches('externalId eq "Ext-1"', ada, (path) => path === 'externalid')).toBe(true);
  });

  it('matches attribute names case-insensitively (RFC 7643 §2.1)', () => {
    expect(matches('USERNAME eq "ada@example.com"')).toBe(true);
    expect(matches('Name.GivenName eq "ada"')).toBe(true);
  });

  it('implements every comparison operator', () => {
    expect(matches('userName ne "bob@example.com"')).toBe(true);
    expect(matches('userName co "EXAMPLE"')).toBe(true);
    expect(matches('userName sw "ada@"')).toBe(true);
    expect(matches('userName ew ".COM"')).toBe(true);
    expect(matches('loginCount gt 41 and loginCount ge 42 and loginCount lt 43 and loginCount le 42')).toBe(
      true,
    );
    expect(matches('loginCount gt 42')).toBe(false);
    expect(matches('name.familyName gt "K" and name.familyName lt "M"')).toBe(true);
  });

  it('orders date-times chronologically', () => {
    expect(matches('meta.lastModified gt "2024-05-31T23:59:59+00:00"')).toBe(true);
    expect(matches('meta.created lt "2024-01-02T03:04:05.001Z"')).toBe(true);
  });

  it('matches a multi-valued attribute when any value matches', () => {
    expect(matches('emails.value eq "ada@home.example"')).toBe(true);
    expect(matches('emails.type eq "other"')).toBe(false);
    expect(matches('emails co "home.example"')).toBe(true);
  });

  it('matches ne when any value of a multi-valued attribute differs (RFC 7644 §3.4.2.2)', () => {
    expect(matches('emails.type ne "work"')).toBe(true);
    expect(matches('not (emails.type eq "work")')).toBe(false);
    const workOnly = { emails: [{ value: 'a@work.example', type: 'work' }, { value: 'b@x.example' }] };
    expect(matches('emails.type ne "work"', workOnly)).toBe(false);
    expect(matches('emails ne "a@work.example"', workOnly)).toBe(true);
    expect(matches('emails.type ne "work"', { emails: [] })).toBe(true);
  });

  it('applies a value path to each value on its own', () => {
    expect(matches('emails[type eq "work" and value co "@work"]')).toBe(true);
    expect(matches('emails[type eq "home" and value co "@work"]')).toBe(false);
    expect(matches('emails[type eq "home" and not (primary eq true)]')).toBe(true);
  });

  it('passes value-path sub-attributes to caseExact with their parent', () => {
    const seen: string[] = [];
    matches('emails[type eq "work"]', ada, (path) => {
      seen.push(path);
      return false;
    });
    expect(seen).toContain('emails.type');
  });

  it('treats pr as a non-empty value', () => {
    expect(matches('name pr')).toBe(true);
    expect(matches('title pr')).toBe(false);
    expect(matches('nickName pr')).toBe(false);
    expect(matches('emails pr')).toBe(true);
  });

  it('never throws on missing attributes: they do not match, and ne matches them', () => {
    expect(matches('nickName eq "x"')).toBe(false);
    expect(matches('nickName ne "x"')).toBe(true);
    expect(matches('nickName.sub gt "x"')).toBe(false);
    expect(matches('nickName[value eq "x"]')).toBe(false);
    expect(matches('userName eq "x"', null)).toBe(false);
    expect(matches('userName eq "x"', 'not an object')).toBe(false);
  });

  it('treats eq null as unassigned and ne null as assigned', () => {
    expect(matches('nickName eq null')).toBe(true);
    expect(matches('userName eq null')).toBe(false);
    expect(matches('userName ne null')).toBe(true);
  });

  it('does not compare across types', () => {
    expect(matches('loginCount eq "42"')).toBe(false);
    expect(matches('active eq "true"')).toBe(false);
    expect(matches('active eq true')).toBe(true);
  });

  it('resolves URN-qualified paths: core schemas at the top level, extensions in their object', () => {
    expect(matches('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "ada@example.com"')).toBe(true);
    expect(matches(`${ENTERPRISE}:employeeNumber eq "701984"`)).toBe(true);
    expect(matches(`${ENTERPRISE}:manager.value eq "M-9"`)).toBe(true);
    expect(matches(`${ENTERPRISE.toLowerCase()}:EMPLOYEENUMBER eq "701984"`)).toBe(true);
  });

  it('combines with and, or and not', () => {
    expect(matches('userName eq "x" or active eq true')).toBe(true);
    expect(matches('userName eq "x" and active eq true')).toBe(false);
    expect(matches('not (userName eq "x")')).toBe(true);
  });
});

describe('parsePath', () => {
  it.each([
    ['userName', { attribute: 'userName' }],
    ['name.givenName', { attribute: 'name', subAttribute: 'givenName' }],
    [`${ENTERPRISE}:employeeNumber`, { schema: ENTERPRISE, attribute: 'employeeNumber' }],
    ['members[value eq "u-1"]', { attribute: 'members', valueFilter: parseFilter('value eq "u-1"') }],
    [
      'emails[type eq "work"].value',
      { attribute: 'emails', valueFilter: parseFilter('type eq "work"'), subAttribute: 'value' },
    ],
    [
      'urn:ietf:params:scim:schemas:core:2.0:User:emails[type eq "work"].primary',
      {
        schema: 'urn:ietf:params:scim:schemas:core:2.0:User',
        attribute: 'emails',
        valueFilter: parseFilter('type eq "work"'),
        subAttribute: 'primary',
      },
    ],
  ])('parses %s', (text, expected) => {
    expect(parsePath(text)).toEqual(expected);
  });

  it.each([
    '',
    'emails[type eq "work"',
    'emails[type eq "work"].',
    'emails[type eq "work"] x',
    'name.givenName[value eq "x"]',
    'a b',
  ])('rejects %j with invalidPath', (text) => {
    expect(syntaxErrorOf(() => parsePath(text)).scimType).toBe('invalidPath');
  });
});

describe('formatFilterString', () => {
  it.each(['plain', 'a"b\\c', 'new\nline', 'tab\tand\u0001control', 'é and 漢字', '"quoted" or userName pr'])(
    'round-trips %j through the parser unchanged',
    (value) => {
      const literal = formatFilterString(value);
      expect(literal.startsWith('"') && literal.endsWith('"')).toBe(true);
      expect(parseFilter(`userName eq ${literal}`)).toMatchObject({ kind: 'compare', value });
    },
  );

  it('escapes quotes and backslashes so a value cannot inject filter syntax', () => {
    expect(formatFilterString('a"b\\c')).toBe(String.raw`"a\"b\\c"`);
    const hostile = 'x" or userName pr or userName eq "y';
    const node = parseFilter(`userName eq ${formatFilterString(hostile)}`);
    expect(node.kind).toBe('compare');
  });
});

describe('equalityLookup', () => {
  it('returns the canonical attribute and value of a single string equality', () => {
    expect(equalityLookup(parseFilter('UserName eq "Ada"'))).toEqual({ attribute: 'username', value: 'Ada' });
    expect(
      equalityLookup(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:externalId eq "e"')),
    ).toEqual({
      attribute: 'externalid',
      value: 'e',
    });
    expect(equalityLookup(parseFilter('members[value eq "u-1"]'))).toEqual({
      attribute: 'members.value',
      value: 'u-1',
    });
  });

  it.each([
    'userName ne "a"',
    'userName co "a"',
    'active eq true',
    'userName eq "a" and active eq true',
    'not (userName eq "a")',
    'emails[type eq "work" and value eq "x"]',
  ])('returns undefined for %s', (filter) => {
    expect(equalityLookup(parseFilter(filter))).toBeUndefined();
  });
});

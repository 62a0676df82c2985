import { getAttribute } from './attribute-lookup.js';
import { compact } from './compact.js';
import { badRequest } from './target-errors.js';
import {
  GROUP_SCHEMA,
  USER_SCHEMA,
  type GroupAttributes,
  type ScimEmail,
  type UserAttributes,
} from './scim-types.js';

/**
 * Reads request bodies into the writable attributes of a resource. Attribute names are
 * case-insensitive (RFC 7643 §2.1); null means unassigned (RFC 7643 §2.5); unknown attributes and
 * read-only ones (`id`, `meta`, member `display`) are ignored (RFC 7644 §3.5.1); a wrong type is a
 * 400 invalidValue naming every bad attribute.
 */

export interface ReadOptions {
  /** Whether `schemas` must name the core schema (over HTTP: RFC 7643 §3 makes it REQUIRED). */
  requireSchemas: boolean;
}

class Problems {
  readonly list: string[] = [];

  add(problem: string): undefined {
    this.list.push(problem);
    return undefined;
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw badRequest('invalidValue', this.list.join('; '));
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readString(container: unknown, name: string, label: string, problems: Problems): string | undefined {
  const value = getAttribute(container, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return problems.add(`${label} must be a string, not ${describe(value)}`);
  return value;
}

function readRequiredString(container: unknown, name: string, label: string, problems: Problems): string {
  const raw = getAttribute(container, name);
  if (raw === undefined || raw === null) {
    problems.add(`${label} is required`);
    return '';
  }
  const value = readString(container, name, label, problems);
  if (value?.trim() === '') problems.add(`${label} must not be empty`);
  return value ?? '';
}

function readBoolean(
  container: unknown,
  name: string,
  label: string,
  problems: Problems,
): boolean | undefined {
  const value = getAttribute(container, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') return problems.add(`${label} must be a boolean, not ${describe(value)}`);
  return value;
}

function readArray(container: unknown, name: string, problems: Problems): unknown[] {
  const value = getAttribute(container, name);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return problems.add(`${name} must be an array (multi-valued)`) ?? [];
  return value as unknown[];
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

function checkBody(body: unknown, schema: string, options: ReadOptions): void {
  if (!isRecord(body)) throw badRequest('invalidSyntax', 'The request body must be a JSON object');
  if (!options.requireSchemas) return;
  const schemas = getAttribute(body, 'schemas');
  const listed =
    Array.isArray(schemas) &&
    schemas.some((s) => typeof s === 'string' && s.toLowerCase() === schema.toLowerCase());
  if (!listed) throw badRequest('invalidSyntax', `schemas must be an array that contains "${schema}"`);
}

export function readUser(body: unknown, options: ReadOptions): UserAttributes {
  checkBody(body, USER_SCHEMA, options);
  const problems = new Problems();
  const user = compact<UserAttributes>({
    externalId: readString(body, 'externalId', 'externalId', problems),
    userName: readRequiredString(body, 'userName', 'userName', problems),
    name: readName(getAttribute(body, 'name'), problems),
    displayName: readString(body, 'displayName', 'displayName', problems),
    emails: readEmails(body, problems),
    active: readBoolean(body, 'active', 'active', problems) ?? true,
  });
  problems.throwIfAny();
  return user;
}

function readName(value: unknown, problems: Problems): UserAttributes['name'] {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) return problems.add(`name must be an object, not ${describe(value)}`);
  const givenName = readString(value, 'givenName', 'name.givenName', problems);
  const familyName = readString(value, 'familyName', 'name.familyName', problems);
  if (givenName === undefined && familyName === undefined) return undefined;
  return compact({ givenName, familyName });
}

/** The emails, or undefined when there are none (an empty multi-valued attribute is unassigned). */
function readEmails(body: unknown, problems: Problems): ScimEmail[] | undefined {
  const emails: ScimEmail[] = [];
  readArray(body, 'emails', problems).forEach((item, index) => {
    const label = `emails[${index}]`;
    if (!isRecord(item)) return problems.add(`${label} must be an object with a value`);
    emails.push(
      compact<ScimEmail>({
        value: readRequiredString(item, 'value', `${label}.value`, problems),
        type: readString(item, 'type', `${label}.type`, problems),
        primary: readBoolean(item, 'primary', `${label}.primary`, problems),
      }),
    );
  });
  // RFC 7643 §2.4: the primary attribute value "true" MUST appear no more than once.
  if (emails.filter((email) => email.primary === true).length > 1)
    problems.add('only one of emails may be primary');
  return emails;
}

export function readGroup(body: unknown, options: ReadOptions): GroupAttributes {
  checkBody(body, GROUP_SCHEMA, options);
  const problems = new Problems();
  const group: GroupAttributes = {
    displayName: readRequiredString(body, 'displayName', 'displayName', problems),
    members: [],
  };
  const externalId = readString(body, 'externalId', 'externalId', problems);
  const seen = new Set<string>();
  readArray(body, 'members', problems).forEach((item, index) => {
    const label = `members[${index}]`;
    if (!isRecord(item)) return problems.add(`${label} must be an object with a value`);
    const value = readRequiredString(item, 'value', `${label}.value`, problems);
    if (value !== '' && !seen.has(value)) group.members.push(value);
    seen.add(value);
  });
  problems.throwIfAny();
  return compact({ externalId, ...group });
}

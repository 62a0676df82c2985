import type { GroupRecord, UserRecord } from './google-model.js';

/**
 * The Directory API's search `query` (developers.google.com/workspace/admin/directory/v1/guides/
 * search-users, search-groups): clauses separated by spaces, all of which must hold (there is no
 * OR). A clause is `field operator value`; a value with spaces is quoted ('…' or "…"); `:` with a
 * trailing `*` matches a prefix, `:` alone a word the field contains, `=` the whole value.
 *
 * Users: `email`, `givenName`, `familyName`, `name`, `isSuspended`, `isArchived`, `isAdmin`,
 * `orgUnitPath` (the unit and every unit under it), `externalId`, `Schema.field` (custom schemas).
 * Groups: `email`, `name`, `memberKey` (handled by the route). Anything else, or a clause that does
 * not parse, is refused with 400 "Invalid Input: query" (as ssosync #148 saw it).
 */

export class QueryError extends Error {}

interface Clause {
  field: string;
  operator: '=' | ':';
  value: string;
  prefix: boolean;
}

export type Predicate<T> = (item: T) => boolean;

export function parseClauses(query: string): Clause[] {
  const clauses: Clause[] = [];
  const pattern = /\s*([A-Za-z][\w.]*)(=|:)('([^']*)'|"([^"]*)"|(\S+))/y;
  let index = 0;
  const text = query.trim();
  while (index < text.length) {
    pattern.lastIndex = index;
    const match = pattern.exec(text);
    if (!match) throw new QueryError(`cannot read the query at ${JSON.stringify(text.slice(index))}`);
    index = pattern.lastIndex;
    const raw = match[4] ?? match[5] ?? match[6] ?? '';
    const prefix = match[2] === ':' && raw.endsWith('*');
    clauses.push({
      field: match[1] as string,
      operator: match[2] as '=' | ':',
      value: prefix ? raw.slice(0, -1) : raw,
      prefix,
    });
    if (index < text.length && !/\s/.test(text[index] as string))
      throw new QueryError('clauses are separated by spaces');
  }
  if (clauses.length === 0) throw new QueryError('empty query');
  return clauses;
}

function textMatch(actual: string, clause: Clause): boolean {
  const have = actual.toLowerCase();
  const want = clause.value.toLowerCase();
  if (clause.operator === '=') return have === want;
  if (clause.prefix) return have.startsWith(want) || have.split(/\s+/).some((word) => word.startsWith(want));
  return have.split(/[\s@.]+/).includes(want) || have === want;
}

/** A boolean field's clause, checked when read (a bad one is refused even if nothing matches). */
function boolClause(clause: Clause, get: (u: UserRecord) => boolean): Predicate<UserRecord> {
  if (clause.operator !== '=' || !['true', 'false'].includes(clause.value)) {
    throw new QueryError(`${clause.field} takes =true or =false`);
  }
  const wanted = clause.value === 'true';
  return (u) => get(u) === wanted;
}

function userClause(clause: Clause): Predicate<UserRecord> {
  switch (clause.field) {
    case 'email':
      return (u) => [u.primaryEmail, ...u.aliases].some((address) => textMatch(address, clause));
    case 'givenName':
      return (u) => textMatch(u.givenName, clause);
    case 'familyName':
      return (u) => textMatch(u.familyName, clause);
    case 'name':
      return (u) => textMatch(`${u.givenName} ${u.familyName}`, clause);
    case 'isSuspended':
      return boolClause(clause, (u) => u.suspended);
    case 'isArchived':
      return boolClause(clause, (u) => u.archived);
    case 'isAdmin':
      return boolClause(clause, (u) => u.isAdmin);
    case 'orgUnitPath':
      if (!clause.value.startsWith('/')) throw new QueryError('an org unit path starts with /');
      return (u) => inUnit(u.orgUnitPath, clause.value);
    case 'externalId':
      return (u) => u.externalIds.some((e) => e.value === clause.value);
    default:
      return schemaClause(clause);
  }
}

function schemaClause(clause: Clause): Predicate<UserRecord> {
  const [schema, field, ...rest] = clause.field.split('.');
  if (schema === undefined || field === undefined || rest.length > 0) {
    throw new QueryError(`unknown field ${clause.field}`);
  }
  return (u) => {
    const value = u.customSchemas[schema]?.[field];
    return value !== undefined && textMatch(String(value), clause);
  };
}

function inUnit(path: string, unit: string): boolean {
  const base = unit.length > 1 ? unit.replace(/\/$/, '') : unit;
  return base === '/' || path === base || path.startsWith(`${base}/`);
}

/** The predicate of a users.list `query`; throws QueryError for what Google would refuse. */
export function userQuery(query: string): Predicate<UserRecord> {
  const clauses = parseClauses(query).map(userClause);
  return (user) => clauses.every((holds) => holds(user));
}

/** The predicate of a groups.list `query`, and the `memberKey` clause if one was given. */
export function groupQuery(query: string): { holds: Predicate<GroupRecord>; memberKey?: string } {
  let memberKey: string | undefined;
  const predicates = parseClauses(query).flatMap((clause): Predicate<GroupRecord>[] => {
    if (clause.field === 'memberKey' && clause.operator === '=') {
      memberKey = clause.value;
      return [];
    }
    if (clause.field === 'email') return [(g) => [g.email, ...g.aliases].some((a) => textMatch(a, clause))];
    if (clause.field === 'name') return [(g) => textMatch(g.name, clause)];
    throw new QueryError(`unknown field ${clause.field}`);
  });
  return { holds: (group) => predicates.every((holds) => holds(group)), memberKey };
}

import { parse, type Compare, type Filter } from 'scim2-parse-filter';
import { attributeKey, isCoreSchema, readAttributePath, type AttributePath } from './attribute-path.js';
import { liftLiterals, withLiterals } from './filter-literals.js';
import { badRequest } from './target-errors.js';

/**
 * SCIM filters (RFC 7644 §3.4.2.2) as scim2-parse-filter parses them, made strict where the
 * library is lenient: the tree it returns is checked and put in a canonical form before anything
 * evaluates it (filter-tester.ts) or looks it up in an index (indexed-query.ts):
 * - attribute paths are `[URI ":"] ATTRNAME ["." ATTRNAME]`, and a core schema's URN is dropped
 *   (RFC 7644 §3.10: `urn:ietf:params:scim:schemas:core:2.0:User:userName` is `userName`);
 * - a value filter follows an attribute, not a sub-attribute, and holds no other value filter;
 * - `co`, `sw` and `ew` take a string; `gt`, `ge`, `lt` and `le` refuse true, false and null.
 * Every problem is a 400 with `scimType` invalidFilter (invalidPath inside a PATCH path, §3.5.2).
 */

export type TargetFilter = Filter;
export type FilterErrorType = 'invalidFilter' | 'invalidPath';

/**
 * Levels of `not`, `and`/`or` and value filters inside one another. RFC 7644 sets no bound, but a
 * tree deeper than the stack allows would fail while it is evaluated, as a 500; far past anything a
 * client sends, it is refused here instead.
 */
const MAX_DEPTH = 64;
const SUBSTRING_OPERATORS: ReadonlySet<string> = new Set(['co', 'sw', 'ew']);
const ORDER_OPERATORS: ReadonlySet<string> = new Set(['gt', 'ge', 'lt', 'le']);

type Fail = (problem: string) => never;

export function parseTargetFilter(text: string, type: FilterErrorType = 'invalidFilter'): TargetFilter {
  const what = type === 'invalidFilter' ? 'filter' : 'path';
  const fail: Fail = (problem) => {
    throw badRequest(type, `Invalid ${what} ${JSON.stringify(text)}: ${problem}`);
  };
  if (text.trim() === '') fail('it is empty');
  const { skeleton, literals } = liftLiterals(text, fail);
  let tree: Filter;
  try {
    tree = parse(skeleton);
  } catch (error) {
    // The library throws plain Errors (and a RangeError for absurd nesting): all of them are the
    // client's filter, never a 500.
    return fail(withLiterals(error instanceof Error ? error.message : String(error), literals));
  }
  return canonical(tree, { literals, fail, inValueFilter: false, depth: 0 });
}

/** The index and caseExact key of a canonical attribute path (see attributeKey). */
export function keyOfPath(attrPath: string, within?: string): string {
  const path = readAttributePath(attrPath);
  return path === undefined ? attrPath.toLowerCase() : attributeKey(path, within);
}

/** Whether a canonical attribute path names a sub-attribute (`name.givenName`). */
export function hasSubAttribute(attrPath: string): boolean {
  return readAttributePath(attrPath)?.subAttribute !== undefined;
}

interface Context {
  literals: readonly (string | number)[];
  fail: Fail;
  inValueFilter: boolean;
  depth: number;
}

function canonical(node: Filter, outer: Context): Filter {
  const context = { ...outer, depth: outer.depth + 1 };
  if (context.depth > MAX_DEPTH) context.fail(`it is nested deeper than ${MAX_DEPTH} levels`);
  switch (node.op) {
    case 'and':
    case 'or':
      return { op: node.op, filters: node.filters.map((filter) => canonical(filter, context)) };
    case 'not':
      return { op: 'not', filter: canonical(node.filter, context) };
    case '[]': {
      if (context.inValueFilter) context.fail('a value filter cannot contain another');
      const path = checkedPath(node.attrPath, context.fail);
      if (path.subAttribute !== undefined)
        context.fail('a value filter follows an attribute, not a sub-attribute');
      const valFilter = canonical(node.valFilter, { ...context, inValueFilter: true });
      return { op: '[]', attrPath: pathText(path), valFilter };
    }
    case 'pr':
      return { op: 'pr', attrPath: pathText(checkedPath(node.attrPath, context.fail)) };
    default:
      return canonicalCompare(node, context);
  }
}

function canonicalCompare(node: Compare, context: Context): Compare {
  const attrPath = pathText(checkedPath(node.attrPath, context.fail));
  // Every string compValue is a placeholder for a literal taken out of the text (filter-literals.ts).
  const compValue =
    typeof node.compValue === 'string' ? (context.literals[Number(node.compValue)] ?? '') : node.compValue;
  if (SUBSTRING_OPERATORS.has(node.op) && typeof compValue !== 'string')
    context.fail(`"${node.op}" needs a string value`);
  // RFC 7644 §3.4.2.2: ordering booleans "SHALL cause a failed response ... invalidFilter".
  if (ORDER_OPERATORS.has(node.op) && (typeof compValue === 'boolean' || compValue === null))
    context.fail(`"${node.op}" cannot order ${String(compValue)}`);
  return { op: node.op, attrPath, compValue };
}

function checkedPath(text: string, fail: Fail): AttributePath {
  const path = readAttributePath(text);
  return path ?? fail(`${JSON.stringify(text)} is not an attribute path`);
}

/** The path as the library evaluates it: without a core schema URN, which names top-level attributes. */
function pathText(path: AttributePath): string {
  const local = path.subAttribute === undefined ? path.attribute : `${path.attribute}.${path.subAttribute}`;
  return path.schema === undefined || isCoreSchema(path.schema) ? local : `${path.schema}:${local}`;
}

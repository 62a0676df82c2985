import { Environment } from '@marcbachmann/cel-js';
import { MAX_REGEX_INPUT } from './expression-regex.js';

/**
 * The functions a scope or mapping expression may call beyond CEL's own (docs/scope-and-mapping.md
 * has the reference), named as Microsoft Entra's provisioning expressions name theirs: `lower`,
 * `upper`, `normalizeDiacritics`, `coalesce`, `join`, `split`, `replace`, `startsWith`,
 * `endsWith`, `switch`; and what reads the identity being evaluated: `memberOf`, `attr`, `values`.
 *
 * Those last ones read the identity through `IdentityFacts` installed for one synchronous
 * evaluation (withFacts): CEL functions see their arguments only, and an evaluation never yields.
 */

/** What the functions that read the identity see of it. */
export interface IdentityFacts {
  /** The first value of a source attribute, '' when it has none. */
  attribute(name: string): string;
  /** Every value of a source attribute. */
  values(name: string): string[];
  /** Whether the identity is in the group, named by its DN, name or id (case-insensitive). */
  memberOf(group: string): boolean;
}

const NO_FACTS: IdentityFacts = { attribute: () => '', values: () => [], memberOf: () => false };
let current: IdentityFacts = NO_FACTS;

/** Runs one evaluation with the identity's facts installed. */
export function withFacts<T>(facts: IdentityFacts, evaluate: () => T): T {
  const previous = current;
  current = facts;
  try {
    return evaluate();
  } finally {
    current = previous;
  }
}

/** Letters without their marks, and the letters Unicode does not decompose (ß, ø, æ, œ, đ, ł, þ). */
export function normalizeDiacritics(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[ßøØæÆœŒđĐłŁþÞ]/g, (c) => FOLDED[c] ?? c);
}

const FOLDED: Readonly<Record<string, string>> = {
  ß: 'ss',
  ø: 'o',
  Ø: 'O',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  đ: 'd',
  Đ: 'D',
  ł: 'l',
  Ł: 'L',
  þ: 'th',
  Þ: 'Th',
};

/** The functions that take a regular expression: its argument must be a checked literal. */
export const PATTERN_ARGUMENT: Readonly<Record<string, number>> = { replace: 1, matches: 0 };
/** The functions whose argument names a source attribute: a literal, read from the source. */
export const ATTRIBUTE_FUNCTIONS = new Set(['attr', 'values']);

const compiledPatterns = new Map<string, RegExp>();

function replaceAll(value: string, pattern: string, replacement: string): string {
  if (value.length > MAX_REGEX_INPUT) {
    throw new Error(`replace: a value longer than ${MAX_REGEX_INPUT} characters`);
  }
  if (replacement.length > MAX_REGEX_INPUT) {
    throw new Error(`replace: a replacement longer than ${MAX_REGEX_INPUT} characters`);
  }
  let regex = compiledPatterns.get(pattern);
  if (!regex) {
    regex = new RegExp(pattern, 'gu');
    if (compiledPatterns.size < 1000) compiledPatterns.set(pattern, regex);
  }
  // Nested calls multiply a value's length (an empty pattern matches between every character):
  // a result over the bound fails here, before a further call could grow it again.
  const result = value.replace(regex, replacement);
  if (result.length > MAX_REGEX_INPUT) {
    throw new Error(`replace: a result longer than ${MAX_REGEX_INPUT} characters`);
  }
  return result;
}

const firstPresent = (...values: string[]) => values.find((v) => v !== '') ?? '';
const joined = (separator: string, values: readonly string[]) =>
  values.filter((v) => v !== '').join(separator);

/** switch(value, default, key1, result1, …): the result of the first key equal to the value. */
function switchOf(value: string, fallback: string, ...pairs: string[]): string {
  for (let i = 0; i + 1 < pairs.length; i += 2) if (pairs[i] === value) return pairs[i + 1] as string;
  return fallback;
}

const strings = (n: number) => Array.from({ length: n }, () => 'string').join(', ');

/** The environment every scope and mapping expression is checked and evaluated in. */
export function expressionEnvironment(limits: { maxAstNodes: number; maxDepth: number }): Environment {
  const env = new Environment({
    limits: { ...limits, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 16 },
  })
    .registerFunction('lower(string): string', (s: string) => s.toLowerCase())
    .registerFunction('upper(string): string', (s: string) => s.toUpperCase())
    .registerFunction('normalizeDiacritics(string): string', normalizeDiacritics)
    .registerFunction('coalesce(list<string>): string', (l: string[]) => firstPresent(...l))
    .registerFunction('join(string, list<string>): string', joined)
    .registerFunction('split(string, string): list<string>', (s: string, sep: string) =>
      s === '' ? [] : s.split(sep),
    )
    .registerFunction('replace(string, string, string): string', replaceAll)
    .registerFunction('startsWith(string, string): bool', (s: string, p: string) =>
      s.toLowerCase().startsWith(p.toLowerCase()),
    )
    .registerFunction('endsWith(string, string): bool', (s: string, p: string) =>
      s.toLowerCase().endsWith(p.toLowerCase()),
    )
    .registerFunction('memberOf(string): bool', (group: string) => current.memberOf(group))
    .registerFunction('attr(string): string', (name: string) => current.attribute(name))
    .registerFunction('values(string): list<string>', (name: string) => current.values(name));
  for (let n = 2; n <= 6; n++) {
    env.registerFunction(`coalesce(${strings(n)}): string`, firstPresent);
    env.registerFunction(`join(${strings(n + 1)}): string`, (sep: string, ...v: string[]) => joined(sep, v));
  }
  for (let pairs = 1; pairs <= 8; pairs++) {
    env.registerFunction(`switch(${strings(2 + 2 * pairs)}): string`, switchOf);
  }
  return env;
}

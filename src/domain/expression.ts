import type { ASTNode, Environment } from '@marcbachmann/cel-js';
import {
  ATTRIBUTE_FUNCTIONS,
  expressionEnvironment,
  PATTERN_ARGUMENT,
  withFacts,
  type IdentityFacts,
} from './expression-functions.js';
import { regexProblem } from './expression-regex.js';

/**
 * One scope or mapping expression (CEL, through @marcbachmann/cel-js): parsed, bounded and type
 * checked once, when the configuration (or a candidate) is loaded, then evaluated per identity.
 *
 * Names: the variables the input declares (`id`, `dn`, `groups`…, typed) and any other identifier,
 * which is a source attribute, a string: its first value, '' when the identity has none
 * (`attr("name-with-dashes")` and `values("mail")` reach the others). Bounded cost: at most
 * MAX_TEXT characters, MAX_NODES nodes, MAX_DEPTH levels, comprehensions (`exists`, `map`…)
 * nested at most MAX_LOOPS deep, regular expressions only as checked literals (expression-regex.ts);
 * CEL has no other loop, so an evaluation costs at most its nodes times the lists it walks.
 */

export type VariableType = 'string' | 'bool' | 'list<string>';
export type ResultType = 'string' | 'bool';

/** The typed variables an input offers its expressions, beside its attributes. */
export type Vocabulary = Readonly<Record<string, VariableType>>;

/** What an evaluation reads: the declared variables, and the identity's attributes and groups. */
export interface EvaluationInput extends IdentityFacts {
  variable(name: string): unknown;
}

export interface CompiledExpression {
  readonly text: string;
  /** Source attributes it reads: the LDAP attributes a search must ask for. */
  readonly attributes: readonly string[];
  /** Whether it reads group membership (`groups`, `memberOf`): the source must know it first. */
  readonly readsMembership: boolean;
  /** Throws (an EvaluationError, or a function's Error) when it fails on this identity. */
  evaluate(input: EvaluationInput): unknown;
}

export const MAX_TEXT = 2000;
export const MAX_NODES = 400;
export const MAX_DEPTH = 32;
export const MAX_LOOPS = 2;

const LOOPS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const MEMBERSHIP = 'groups';

let base: Environment | undefined;
function baseEnvironment(): Environment {
  base ??= expressionEnvironment({ maxAstNodes: MAX_NODES, maxDepth: MAX_DEPTH });
  return base;
}

/** Compiles one expression, or says why not (`at line:column: reason`). */
export function compileExpression(
  text: string,
  vocabulary: Vocabulary,
  want: ResultType,
): { expression: CompiledExpression } | { problem: string } {
  if (text.length > MAX_TEXT) return { problem: `longer than ${MAX_TEXT} characters` };
  const env = baseEnvironment();
  let ast: ASTNode;
  try {
    ast = env.clone({ unlistedVariablesAreDyn: true }).parse(text).ast;
  } catch (error) {
    return { problem: celProblem(text, error) };
  }
  const walked = walk(ast);
  if (walked.problem) return { problem: walked.problem };
  const attributes = [...walked.free].filter((name) => vocabulary[name] === undefined);
  const typed = env.clone();
  for (const [name, type] of Object.entries(vocabulary)) typed.registerVariable(name, type);
  for (const name of attributes) typed.registerVariable(name, 'string');
  const checked = typed.check(text);
  if (!checked.valid) return { problem: celProblem(text, checked.error) };
  if (checked.type !== want) {
    return {
      problem: `gives ${checked.type ?? 'nothing'}, expected ${want === 'bool' ? 'true or false' : 'a string'}`,
    };
  }
  const run = typed.parse(text);
  const names = [...walked.free];
  const expression: CompiledExpression = {
    text,
    attributes: [...attributes, ...walked.named],
    readsMembership: walked.free.has(MEMBERSHIP) || walked.calls.has('memberOf'),
    evaluate: (input) => {
      const activation: Record<string, unknown> = {};
      for (const name of names) {
        activation[name] = vocabulary[name] === undefined ? input.attribute(name) : input.variable(name);
      }
      return withFacts(input, () => run(activation) as unknown);
    },
  };
  return { expression };
}

interface Walked {
  free: Set<string>;
  calls: Set<string>;
  /** Attributes named by literal arguments (attr, values). */
  named: string[];
  problem?: string;
}

/** Free identifiers, calls, and the rules the type checker does not know (literals, loop depth). */
function walk(root: ASTNode): Walked {
  const out: Walked = { free: new Set(), calls: new Set(), named: [] };
  const bound = new Set<string>();
  const visit = (node: ASTNode, loops: number): void => {
    if (out.problem) return;
    if (node.op === 'id') {
      out.free.add(node.args);
      return;
    }
    if (node.op === 'call' || node.op === 'rcall') {
      const name = node.args[0];
      const args = node.op === 'call' ? node.args[1] : node.args[2];
      out.calls.add(name);
      const nested = node.op === 'rcall' && (LOOPS.has(name) || isBind(node)) ? loops + 1 : loops;
      if (nested > MAX_LOOPS) out.problem = at(node, `comprehensions nested more than ${MAX_LOOPS} deep`);
      if (nested > loops && args[0]?.op === 'id') bound.add(args[0].args);
      const literalRule = literalProblem(name, node.op === 'rcall', args);
      if (literalRule) out.problem = at(node, literalRule);
      else if (ATTRIBUTE_FUNCTIONS.has(name) && args[0]?.op === 'value') out.named.push(String(args[0].args));
      if (node.op === 'rcall' && !isBind(node)) visit(node.args[1], nested);
      for (const arg of args) visit(arg, nested);
      return;
    }
    for (const child of children(node)) visit(child, loops);
  };
  visit(root, 0);
  for (const name of bound) out.free.delete(name);
  return out;
}

function literalProblem(name: string, receiver: boolean, args: readonly ASTNode[]): string | undefined {
  // `s.matches(p)` and `matches(s, p)` are both CEL's.
  const patternAt = name === 'matches' && !receiver ? 1 : PATTERN_ARGUMENT[name];
  if (patternAt !== undefined) {
    const pattern = args[patternAt];
    if (pattern?.op !== 'value' || typeof pattern.args !== 'string')
      return `${name}: the pattern must be a string literal`;
    const problem = regexProblem(pattern.args);
    if (problem) return `${name}: refused pattern (${problem})`;
  }
  if (ATTRIBUTE_FUNCTIONS.has(name) && !receiver) {
    const named = args[0];
    if (named?.op !== 'value' || typeof named.args !== 'string')
      return `${name}: the attribute name must be a string literal`;
  }
  return undefined;
}

function isBind(node: ASTNode): boolean {
  return (
    node.op === 'rcall' && node.args[0] === 'bind' && node.args[1].op === 'id' && node.args[1].args === 'cel'
  );
}

function children(node: ASTNode): ASTNode[] {
  const args: unknown = node.args;
  if (!Array.isArray(args)) return [];
  return (args as unknown[])
    .flat(2)
    .filter((x): x is ASTNode => typeof x === 'object' && x !== null && 'op' in x);
}

function at(node: { start?: number; input?: string }, reason: string): string {
  return `${position(node.input ?? '', node.start ?? 0)}: ${reason}`;
}

function celProblem(text: string, error: unknown): string {
  const e = error as { summary?: string; message?: string; range?: { start: number } } | undefined;
  const reason = e?.summary ?? e?.message ?? String(error);
  return e?.range ? `${position(text, e.range.start)}: ${reason}` : reason;
}

/** `at line L, column C` (1-based) of a character offset. */
export function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `at line ${before.length}, column ${(before[before.length - 1]?.length ?? 0) + 1}`;
}

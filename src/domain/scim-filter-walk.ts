import type { FilterNode } from './scim-filter-ast.js';

/**
 * Walks over parsed filters without recursing along `and` / `or` chains. The parser builds
 * `a or b or c` as a left-leaning chain as deep as the filter has terms; going down such a chain
 * one call per level would tie the stack to the filter's size. These loops keep it tied to the
 * nesting depth only (parentheses and value filters, capped by FILTER_LIMITS.maxDepth).
 */

/** The operands of a chain of one logical operator, left to right: `a or (b and c) or d` → [a, (b and c), d]. */
export function logicalOperands(node: FilterNode, kind: 'and' | 'or'): FilterNode[] {
  const out: FilterNode[] = [];
  const pending: FilterNode[] = [node];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.kind === kind) pending.push(next.right, next.left);
    else out.push(next);
  }
  return out;
}

/** Whether any node of the tree satisfies `test` (every node is visited once, with no recursion). */
export function someNode(root: FilterNode, test: (node: FilterNode) => boolean): boolean {
  const pending: FilterNode[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (test(node)) return true;
    if (node.kind === 'and' || node.kind === 'or') pending.push(node.right, node.left);
    else if (node.kind === 'not' || node.kind === 'valuePath') pending.push(node.filter);
  }
  return false;
}

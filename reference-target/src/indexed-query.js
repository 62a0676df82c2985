import { equalityLookup, matchesFilter, } from '../../src/domain/scim-filter.js';
export function indexedCandidates(node, lookup) {
    const equality = equalityLookup(node);
    if (equality !== undefined)
        return lookup(equality.attribute, equality.value);
    if (node.kind === 'and') {
        const left = indexedCandidates(node.left, lookup);
        const right = indexedCandidates(node.right, lookup);
        if (left === undefined || right === undefined)
            return left ?? right;
        return left.size <= right.size ? left : right;
    }
    if (node.kind === 'or') {
        const left = indexedCandidates(node.left, lookup);
        const right = indexedCandidates(node.right, lookup);
        if (left === undefined || right === undefined)
            return undefined;
        return new Set([...left, ...right]);
    }
    return undefined;
}
/** RFC 7644 §3.4.2: the matching resources in creation order, `count` of them from zero-based `offset`. */
export function queryTable(table, query, lookup, options) {
    const { filter, offset, count } = query;
    if (filter === undefined)
        return { totalResults: table.size, resources: table.page(offset, count) };
    const candidates = indexedCandidates(filter, lookup);
    const matches = (resource) => matchesFilter(filter, resource, options);
    const found = candidates === undefined ? table.filter(matches) : table.inOrder(candidates).filter(matches);
    return { totalResults: found.length, resources: found.slice(offset, offset + count) };
}
//# sourceMappingURL=indexed-query.js.map
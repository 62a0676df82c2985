/**
 * The object without its undefined members, in the same key order. Resources are built with every
 * attribute in canonical order and compacted, so that equal resources serialise equally and an
 * unassigned attribute is absent rather than undefined (RFC 7643 §2.5).
 */
export function compact(value) {
    const result = {};
    for (const key in value) {
        if (value[key] !== undefined)
            result[key] = value[key];
    }
    return result;
}
//# sourceMappingURL=compact.js.map
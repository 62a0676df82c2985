import { parseFilter } from '../../src/domain/scim-filter.js';
import { badRequest } from './scim-errors.js';
/** One query parameter; given twice is a 400, as its meaning would be ambiguous. */
export function queryParameter(req, name) {
    const value = req.query[name];
    if (value === undefined || typeof value === 'string')
        return value;
    throw badRequest('invalidValue', `The query parameter ${name} must be given once`);
}
export function readListParameters(req, pageCap) {
    const filterText = queryParameter(req, 'filter');
    const startIndex = Math.max(1, readInteger(req, 'startIndex') ?? 1);
    const count = Math.min(pageCap, Math.max(0, readInteger(req, 'count') ?? pageCap));
    if (filterText === undefined || filterText.trim() === '')
        return { startIndex, count };
    // parseFilter throws a 400 invalidFilter naming the problem (RFC 7644 §3.4.2.2).
    return { filter: parseFilter(filterText), startIndex, count };
}
function readInteger(req, name) {
    const text = queryParameter(req, name);
    if (text === undefined || text.trim() === '')
        return undefined;
    if (!/^\s*-?\d+\s*$/.test(text))
        throw badRequest('invalidValue', `${name} must be an integer, not ${JSON.stringify(text)}`);
    return Number.parseInt(text, 10);
}
//# sourceMappingURL=list-query.js.map
import { isBridgeError } from '../../src/domain/errors.js';
import { parsePath } from '../../src/domain/scim-filter.js';
import { findAttribute, isOwnSchema } from './resource-schemas.js';
import { badRequest } from './scim-errors.js';
export function readSelection(attributes, excludedAttributes, schema) {
    const include = attributes === undefined ? undefined : parseList('attributes', attributes, schema);
    const exclude = excludedAttributes === undefined
        ? undefined
        : parseList('excludedAttributes', excludedAttributes, schema);
    if (include === undefined && exclude === undefined)
        return undefined;
    if (include !== undefined) {
        for (const definition of schema.attributes)
            if (definition.returned === 'always')
                include.set(definition.name, 'all');
    }
    if (exclude !== undefined) {
        for (const definition of schema.attributes)
            if (definition.returned === 'always')
                exclude.delete(definition.name);
    }
    return { ...(include === undefined ? {} : { include }), ...(exclude === undefined ? {} : { exclude }) };
}
function parseList(parameter, text, schema) {
    const selection = new Map();
    for (const entry of text.split(',').map((part) => part.trim())) {
        if (entry === '')
            continue;
        const path = parseEntry(parameter, entry);
        const attribute = isOwnSchema(schema, path.schema)
            ? findAttribute(schema.attributes, path.attribute)
            : undefined;
        if (attribute === undefined)
            continue;
        const sub = path.subAttribute === undefined ? undefined : findAttribute(attribute.subAttributes, path.subAttribute);
        const current = selection.get(attribute.name);
        if (sub === undefined || current === 'all') {
            if (path.subAttribute === undefined)
                selection.set(attribute.name, 'all');
        }
        else {
            selection.set(attribute.name, new Set([...(current ?? []), sub.name]));
        }
    }
    return selection;
}
function parseEntry(parameter, entry) {
    try {
        const path = parsePath(entry);
        if (path.valueFilter === undefined)
            return path;
    }
    catch (error) {
        if (!isBridgeError(error))
            throw error;
    }
    throw badRequest('invalidValue', `${parameter}: ${JSON.stringify(entry)} is not an attribute path`);
}
/** The resource as the selection shows it; the stored object itself when nothing is selected. */
export function project(resource, selection) {
    if (selection === undefined)
        return resource;
    let result = resource;
    if (selection.include !== undefined)
        result = pick(result, selection.include);
    if (selection.exclude !== undefined)
        result = drop(result, selection.exclude);
    return result;
}
function pick(resource, selection) {
    const result = {};
    for (const [key, value] of Object.entries(resource)) {
        const selected = key === 'schemas' ? 'all' : selection.get(key);
        if (selected === 'all')
            result[key] = value;
        else if (selected !== undefined)
            result[key] = mapComplex(value, (member) => selected.has(member));
    }
    return result;
}
function drop(resource, selection) {
    const result = {};
    for (const [key, value] of Object.entries(resource)) {
        const selected = selection.get(key);
        if (selected === undefined)
            result[key] = value;
        else if (selected !== 'all')
            result[key] = mapComplex(value, (member) => !selected.has(member));
    }
    return result;
}
/** Keeps the members of a complex value (or of each value of a multi-valued one) that `keep` accepts. */
function mapComplex(value, keep) {
    const filterObject = (item) => {
        if (typeof item !== 'object' || item === null)
            return item;
        return Object.fromEntries(Object.entries(item).filter(([member]) => keep(member)));
    };
    return Array.isArray(value) ? value.map(filterObject) : filterObject(value);
}
//# sourceMappingURL=projection.js.map
/**
 * An in-memory table of resources in creation order. Look-up by id is a Map; a page of the whole
 * table is a slice of an array, so walking a large table page by page costs O(page) per request.
 * Deleted rows leave holes that the next page request compacts away once.
 */
export class ResourceTable {
    rows = new Map();
    order = [];
    holes = 0;
    nextSequence = 0;
    get size() {
        return this.rows.size;
    }
    get(id) {
        return this.rows.get(id)?.resource;
    }
    insert(resource) {
        const row = { resource, sequence: this.nextSequence++, deleted: false };
        this.rows.set(resource.id, row);
        this.order.push(row);
    }
    replace(resource) {
        const row = this.rows.get(resource.id);
        if (row === undefined)
            throw new Error(`No row ${resource.id}`);
        row.resource = resource;
    }
    delete(id) {
        const row = this.rows.get(id);
        if (row === undefined)
            return undefined;
        this.rows.delete(id);
        row.deleted = true;
        this.holes += 1;
        return row.resource;
    }
    /** `count` resources from zero-based `offset`, in creation order. */
    page(offset, count) {
        this.compact();
        return this.order.slice(offset, offset + count).map((row) => row.resource);
    }
    all() {
        return this.page(0, this.order.length);
    }
    /** The resources with these ids, in creation order; unknown ids are skipped. */
    inOrder(ids) {
        const rows = [];
        for (const id of ids) {
            const row = this.rows.get(id);
            if (row !== undefined)
                rows.push(row);
        }
        return rows.sort((a, b) => a.sequence - b.sequence).map((row) => row.resource);
    }
    filter(predicate) {
        const matches = [];
        for (const row of this.order)
            if (!row.deleted && predicate(row.resource))
                matches.push(row.resource);
        return matches;
    }
    clear() {
        this.rows.clear();
        this.order = [];
        this.holes = 0;
    }
    compact() {
        if (this.holes === 0)
            return;
        this.order = this.order.filter((row) => !row.deleted);
        this.holes = 0;
    }
}
/**
 * A secondary index: key → ids. Keys are normalised by the caller (lower-cased where
 * case-insensitive). Most keys hold one id, kept as a plain string; a Set only once there are more.
 */
export class ValueIndex {
    entries = new Map();
    add(key, id) {
        if (key === undefined)
            return;
        const current = this.entries.get(key);
        if (current === undefined || current === id)
            this.entries.set(key, id);
        else if (typeof current === 'string')
            this.entries.set(key, new Set([current, id]));
        else
            current.add(id);
    }
    remove(key, id) {
        if (key === undefined)
            return;
        const current = this.entries.get(key);
        if (current === id) {
            this.entries.delete(key);
        }
        else if (typeof current === 'object') {
            current.delete(id);
            const [only] = current;
            if (current.size === 1 && only !== undefined)
                this.entries.set(key, only);
        }
    }
    get(key) {
        const current = this.entries.get(key);
        if (current === undefined)
            return EMPTY;
        return typeof current === 'string' ? new Set([current]) : current;
    }
    clear() {
        this.entries.clear();
    }
}
const EMPTY = new Set();
//# sourceMappingURL=resource-table.js.map
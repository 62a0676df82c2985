/**
 * A set of ids kept in insertion order, each with the directory's sequence number at insertion.
 * Paging resumes after a sequence number (the cursor sealed in a skip token) by binary search, so
 * a page costs its own size whatever the set's: a 100,000-user read does no O(n) scan per page.
 * Removed entries leave a hole, compacted once holes outnumber the live entries. Parallel arrays,
 * not an object per entry: the scale fixture holds half a million of them.
 */
export class OrderedIds {
  private idAt: (string | undefined)[] = [];
  private seqAt: number[] = [];
  private readonly index = new Map<string, number>();

  get size(): number {
    return this.index.size;
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  add(id: string, seq: number): void {
    if (this.index.has(id)) throw new Error(`${id} is already in the set`);
    const last = this.seqAt.at(-1);
    if (last !== undefined && last >= seq) throw new Error('sequence numbers must grow');
    this.index.set(id, this.idAt.length);
    this.idAt.push(id);
    this.seqAt.push(seq);
  }

  delete(id: string): boolean {
    const at = this.index.get(id);
    if (at === undefined) return false;
    this.idAt[at] = undefined;
    this.index.delete(id);
    const holes = this.idAt.length - this.index.size;
    if (holes > 64 && holes > this.index.size) this.compact();
    return true;
  }

  /** The live ids in order (for small sets and assertions). */
  ids(): string[] {
    return this.idAt.filter((id): id is string => id !== undefined);
  }

  /**
   * Up to `limit` live ids after sequence number `after` that `accept` keeps, looking at no more
   * than `scan` entries. `cursor` is where the next page starts; `done` when nothing follows.
   */
  page(after: number, limit: number, accept?: (id: string) => boolean, scan = Infinity): Page {
    const ids: string[] = [];
    let i = this.firstAfter(after);
    let cursor = after;
    let looked = 0;
    for (; i < this.idAt.length && ids.length < limit && looked < scan; i++) {
      cursor = this.seqAt[i] as number;
      const id = this.idAt[i];
      if (id === undefined) continue;
      looked++;
      if (!accept || accept(id)) ids.push(id);
    }
    return { ids, cursor, done: i >= this.idAt.length };
  }

  private firstAfter(seq: number): number {
    let low = 0;
    let high = this.seqAt.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.seqAt[mid] as number) <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private compact(): void {
    const ids: string[] = [];
    const seqs: number[] = [];
    this.index.clear();
    this.idAt.forEach((id, i) => {
      if (id === undefined) return;
      this.index.set(id, ids.length);
      ids.push(id);
      seqs.push(this.seqAt[i] as number);
    });
    this.idAt = ids;
    this.seqAt = seqs;
  }
}

export interface Page {
  ids: string[];
  cursor: number;
  done: boolean;
}

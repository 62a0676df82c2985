import { isBridgeError } from '../../domain/errors.js';

/**
 * Runs tasks that share a key one after another, in arrival order (tasks of other keys run freely).
 * PUT and PATCH read an identity, change it and write it back; two of them on one identity at once
 * would otherwise lose one's change. This serialises them within the process; across processes the
 * write is conditional on the version read (`ifVersion`), and a task whose identity another process
 * changed meanwhile runs again from its read (a few times).
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    try {
      await previous;
      return await retryWhenModified(task);
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a task running or waiting (for tests). */
  get size(): number {
    return this.tails.size;
  }
}

const ATTEMPTS = 5;

async function retryWhenModified<T>(task: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await task();
    } catch (error) {
      if (!isBridgeError(error, 'conflict') || error.scimType !== 'modified' || attempt >= ATTEMPTS)
        throw error;
    }
  }
}

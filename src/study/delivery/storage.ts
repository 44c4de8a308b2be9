/**
 * The outbox's durable storage: a small key–value interface (`OutboxStorage`), kept in memory for
 * tests and previews (`MemoryStorage`) or in IndexedDB in the browser (`IndexedDbStorage`).
 */
/**
 * Durable key–value storage of JSON-like values. `update` is an atomic read-modify-write of one
 * key across tabs (one IndexedDB readwrite transaction): the lease lock depends on it.
 */
export interface OutboxStorage {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
  /** Every entry whose key starts with `prefix`, sorted by key. */
  list(prefix: string): Promise<[string, unknown][]>;
  delete(key: string): Promise<void>;
  /**
   * Calls `change` with the stored value (undefined when none) and stores what it returns;
   * returning undefined leaves the value as it is. Resolves to the value stored afterwards.
   */
  update(key: string, change: (old: unknown) => unknown): Promise<unknown>;
}

/** Storage in memory, for tests and previews. Values are cloned, as IndexedDB does. */
export class MemoryStorage implements OutboxStorage {
  private readonly data = new Map<string, unknown>();

  async get(key: string): Promise<unknown> {
    return structuredClone(this.data.get(key));
  }
  async put(key: string, value: unknown): Promise<void> {
    this.data.set(key, structuredClone(value));
  }
  async list(prefix: string): Promise<[string, unknown][]> {
    return [...this.data.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, structuredClone(v)]);
  }
  async delete(key: string): Promise<void> {
    this.data.delete(key);
  }
  async update(key: string, change: (old: unknown) => unknown): Promise<unknown> {
    // Synchronous between the read and the write: atomic within one JavaScript realm.
    const next = change(structuredClone(this.data.get(key)));
    if (next !== undefined) this.data.set(key, structuredClone(next));
    return structuredClone(this.data.get(key));
  }
}

const STORE = 'kv';

const done = <T>(request: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

const committed = (tx: IDBTransaction): Promise<void> =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });

/**
 * Storage in IndexedDB: one object store of out-of-line string keys. Every write resolves only
 * once its transaction has committed. Not unit-tested in Node (no IndexedDB there): the outbox
 * logic is tested through MemoryStorage, and this class only maps the interface onto requests.
 */
export class IndexedDbStorage implements OutboxStorage {
  private constructor(private readonly db: IDBDatabase) {}

  /** Opens (creating if needed) the database `name` through `factory` (the browser's `indexedDB`). */
  static open(factory: IDBFactory, name = 'clutrr-lab-study'): Promise<IndexedDbStorage> {
    return new Promise((resolve, reject) => {
      const request = factory.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(new IndexedDbStorage(request.result));
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error(`the study database "${name}" is blocked by another tab`));
    });
  }

  async get(key: string): Promise<unknown> {
    return done(this.db.transaction(STORE, 'readonly').objectStore(STORE).get(key));
  }
  async put(key: string, value: unknown): Promise<void> {
    const tx = this.db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).put(value, key);
    return committed(tx);
  }
  async list(prefix: string): Promise<[string, unknown][]> {
    const store = this.db.transaction(STORE, 'readonly').objectStore(STORE);
    // '\uffff' sorts after every character a key of ours uses.
    const range = IDBKeyRange.bound(prefix, `${prefix}\uffff`);
    const [keys, values] = await Promise.all([done(store.getAllKeys(range)), done(store.getAll(range))]);
    return keys.map((k, i) => [String(k), values[i]]);
  }
  async delete(key: string): Promise<void> {
    const tx = this.db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).delete(key);
    return committed(tx);
  }
  async update(key: string, change: (old: unknown) => unknown): Promise<unknown> {
    // One readwrite transaction: IndexedDB runs overlapping readwrite transactions on a store one
    // after another, in every tab, so no other write comes between this read and this write.
    const tx = this.db.transaction(STORE, 'readwrite');
    const store = tx.objectStore(STORE);
    let after: unknown;
    const read = store.get(key);
    read.onsuccess = () => {
      const next = change(read.result);
      after = next === undefined ? read.result : next;
      if (next !== undefined) store.put(next, key);
    };
    await committed(tx);
    return after;
  }
}

import { create } from 'zustand';
import { createDatasetPool, type DatasetPool, isCancelled } from '../../worker/datasetClient';
import type { AuditedFile, AuditedRow } from '../../worker/datasetProtocol';

/**
 * The audit view's state: every imported file (with its error, if malformed) and every row with
 * its verdict. Feature-local, so an audit survives opening a row in the explorer and coming back.
 */
export interface AuditState {
  readonly files: readonly AuditedFile[];
  readonly rows: readonly AuditedRow[];
  /** Names being read right now. */
  readonly reading: readonly string[];
  readonly progress: { readonly done: number; readonly total: number } | null;
  /** A failure of the worker itself (not a malformed file). */
  readonly failure: string | null;
}

export interface AuditActions {
  /** Reads and checks files in the worker; a file imported again replaces its earlier version. */
  importFiles(files: readonly File[]): Promise<void>;
  clear(): void;
}

const INITIAL: AuditState = { files: [], rows: [], reading: [], progress: null, failure: null };

let pool: DatasetPool | null = null;
// One worker is plenty: parsing and checking are fast, and they must not queue behind a
// dataset generation, so the audit has its own.
const getPool = () => (pool ??= createDatasetPool(1));
let cancelCurrent: (() => void) | null = null;

/** Replaces files (and their rows) with the same names as `incoming`'s. */
const withoutNames = (s: AuditState, names: ReadonlySet<string>) => ({
  files: s.files.filter((f) => !names.has(f.name)),
  rows: s.rows.filter((r) => !names.has(r.file) && !names.has(r.file.split('/')[0]!)),
});

export const useAudit = create<AuditState & AuditActions>()((set) => ({
  ...INITIAL,

  importFiles: async (files) => {
    if (files.length === 0) return;
    const names = new Set(files.map((f) => f.name));
    const incoming: AuditedRow[] = [];
    set((s) => ({
      ...withoutNames(s, names),
      reading: files.map((f) => f.name),
      progress: { done: 0, total: 1 },
      failure: null,
    }));
    const { promise, cancel } = getPool().audit(
      files.map((f) => ({ name: f.name, data: f })),
      (chunk) => {
        incoming.push(...chunk.rows);
      },
      (done, total) => set({ progress: { done, total } }),
    );
    cancelCurrent = cancel;
    try {
      const result = await promise;
      const resultNames = new Set(result.files.map((f) => f.name));
      // Rows are committed once, with their files, so the summary never shows half a file.
      set((s) => {
        const kept = withoutNames(s, resultNames);
        return {
          files: [...kept.files, ...result.files],
          rows: [...kept.rows, ...incoming],
          reading: [],
          progress: null,
        };
      });
    } catch (e) {
      set({
        reading: [],
        progress: null,
        failure: isCancelled(e) ? null : `The files could not be read: ${(e as Error).message}`,
      });
    } finally {
      if (cancelCurrent === cancel) cancelCurrent = null;
    }
  },

  clear: () => {
    cancelCurrent?.();
    set(INITIAL);
  },
}));

/**
 * One row of a CLUTRR CSV file, with its Python-literal columns parsed. Text columns are kept
 * exactly as written so that import → export reproduces a file byte for byte.
 */

/** ('Constance', 'daughter', 'Kelly'): "Kelly is Constance's daughter". */
export type NamedTriple = readonly [string, string, string];

export interface ProofEntry {
  readonly head: NamedTriple;
  readonly body: readonly NamedTriple[];
}

export interface ClutrrRow {
  /** The unnamed first column (pandas' row index), as written. */
  readonly index: string;
  readonly id: string;
  readonly story: string;
  readonly query: readonly [string, string];
  readonly textQuery: string;
  readonly target: string;
  readonly textTarget: readonly string[];
  readonly cleanStory: string;
  /** Outermost expansion first; each dict of the Python list holds one entry. */
  readonly proofState: readonly ProofEntry[];
  readonly fComb: string;
  readonly taskName: string;
  readonly storyEdges: readonly (readonly [number, number])[];
  /** Types of story_edges, position by position; released noisy files type only the path edges. */
  readonly edgeTypes: readonly string[];
  readonly queryEdge: readonly [number, number];
  /** In story node-index order. */
  readonly genders: readonly { readonly name: string; readonly gender: string }[];
  readonly synStory: string;
  /** Family node id → story node index, in the order the dict lists them. */
  readonly nodeMapping: readonly (readonly [number, number])[];
  readonly taskSplit: string;
}

/** The header of a CLUTRR CSV file, in order (the first column has no name). */
export const CLUTRR_COLUMNS = [
  '',
  'id',
  'story',
  'query',
  'text_query',
  'target',
  'text_target',
  'clean_story',
  'proof_state',
  'f_comb',
  'task_name',
  'story_edges',
  'edge_types',
  'query_edge',
  'genders',
  'syn_story',
  'node_mapping',
  'task_split',
] as const;

export type ClutrrColumn = (typeof CLUTRR_COLUMNS)[number];

/** A malformed file: names the file, the 1-based data row and the column when known. */
export class CsvFormatError extends Error {
  override name = 'CsvFormatError';
  constructor(
    readonly detail: string,
    readonly where: { readonly file?: string; readonly row?: number; readonly column?: string } = {},
  ) {
    const parts = [
      where.file !== undefined ? `${where.file}` : undefined,
      where.row !== undefined ? `row ${where.row}` : undefined,
      where.column !== undefined ? `column ${where.column === '' ? '(index)' : where.column}` : undefined,
    ].filter((p) => p !== undefined);
    super(parts.length > 0 ? `${parts.join(', ')}: ${detail}` : detail);
  }
}

/**
 * What a participant's browser may send (the body of `httpTransport` and of its beacons):
 * `{ "sessions": SessionInfo[], "rows": ResultRow[] }`, checked field by field before anything
 * touches the database. Unknown keys are refused rather than dropped: a row that does not have
 * exactly the export's columns is a client we do not understand, and silently storing part of
 * it would lose data without anyone noticing.
 */
import { z } from 'zod';
import {
  emptyValue,
  RESULT_FIELDS,
  type FieldValue,
  type ResultColumn,
  type ResultField,
} from '../src/study/results/resultFields';
import { RESULT_COLUMNS, type ResultRow, type SessionInfo } from '../src/study/results/results';
import { parseClientJson } from './json';

/** Rows one request may carry: the outbox sends batches of 50, beacons fewer. */
export const MAX_ROWS_PER_REQUEST = 200;
export const MAX_SESSIONS_PER_REQUEST = 200;

const id = z.string().min(1).max(200);
const text = (max: number) => z.string().max(max);
const whole = (min: number, max: number) => z.number().int().min(min).max(max);

/** A result column's check, from its kind and bounds in RESULT_FIELDS. */
function fieldSchema(field: ResultField): z.ZodType {
  switch (field.kind) {
    case 'text':
      return 'pattern' in field ? z.string().regex(field.pattern, field.mismatch) : text(field.max);
    case 'id':
      return z.string().min(1).max(field.max);
    case 'integer':
      return whole(field.min, field.max);
    case 'integer?':
    case 'number?':
      return whole(field.min, field.max).nullable();
    case 'decimal?':
      return z.number().min(field.min).max(field.max).nullable();
    case 'boolean':
      return z.boolean();
    case 'enum':
      return 'noun' in field ? z.literal(field.values) : z.enum(field.values);
  }
}

/** The row schema's shape as the table types it; `_rowsMatch` below holds it to ResultRow. */
type RowShape = { [K in ResultColumn]: z.ZodType<FieldValue<(typeof RESULT_FIELDS)[K]>> };

/**
 * A column added after the first release (`later`) may be missing from a page loaded before it:
 * it reads as empty. (The estimate columns are the server's own anyway: store.ts recomputes them.)
 */
function columnSchema(c: ResultColumn): z.ZodType {
  const field: ResultField = RESULT_FIELDS[c];
  const schema = fieldSchema(field);
  return field.later ? schema.default(emptyValue(c)) : schema;
}

export const resultRowSchema = z.strictObject(
  Object.fromEntries(RESULT_COLUMNS.map((c) => [c, columnSchema(c)])) as RowShape,
);

const rowField = resultRowSchema.shape;

export const sessionInfoSchema = z.strictObject({
  study_id: rowField.study_id,
  session_id: rowField.session_id,
  participant_id: rowField.participant_id,
  condition: rowField.condition,
  user_agent: text(1000),
  screen: text(100),
  started_at: rowField.started_at,
});

export const ingestBodySchema = z.strictObject({
  sessions: z.array(sessionInfoSchema).max(MAX_SESSIONS_PER_REQUEST),
  rows: z.array(resultRowSchema).min(1).max(MAX_ROWS_PER_REQUEST),
  // The secrets of the issued sessions among the rows (src/study/delivery/serverApi.ts, rowsBody).
  secrets: z
    .array(z.strictObject({ session_id: id, secret: text(200) }))
    .max(MAX_SESSIONS_PER_REQUEST)
    .optional(),
});

export interface IngestBody {
  readonly sessions: readonly SessionInfo[];
  readonly rows: readonly ResultRow[];
  readonly secrets?: readonly { readonly session_id: string; readonly secret: string }[] | undefined;
}

// The schemas must describe exactly the shared types: either side changing alone fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _rowsMatch: Same<z.infer<typeof resultRowSchema>, { -readonly [K in keyof ResultRow]: ResultRow[K] }> = true;
const _sessionsMatch: Same<
  z.infer<typeof sessionInfoSchema>,
  { -readonly [K in keyof SessionInfo]: SessionInfo[K] }
> = true;

/** C0 control characters other than tab and newline (and DEL): never part of an id or of a text a person typed. */
// eslint-disable-next-line no-control-regex -- finding these characters is the point
export const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** The first field of a record whose text holds a control character (CONTROL_CHARACTER), or undefined. */
export function controlCharacterField(record: object): string | undefined {
  return Object.entries(record).find(([, v]) => typeof v === 'string' && CONTROL_CHARACTER.test(v))?.[0];
}

/** The place of the first text field of a body holding a control character, or undefined. */
function controlCharacterAt(body: IngestBody): string | undefined {
  for (const [list, records] of [
    ['sessions', body.sessions],
    ['rows', body.rows],
    ['secrets', body.secrets ?? []],
  ] as const) {
    for (const [i, record] of records.entries()) {
      const field = controlCharacterField(record);
      if (field !== undefined) return `${list}.${i}.${field}`;
    }
  }
  return undefined;
}

/** A body as text → the checked body, or one short sentence saying what is wrong and where. */
export function parseIngestBody(body: string): { ok: true; value: IngestBody } | { ok: false; message: string } {
  // Built-in key names refused, lone surrogates made U+FFFD (as SQLite stores them): json.ts.
  const json = parseClientJson(body);
  if (!json.ok) return json;
  const result = ingestBodySchema.safeParse(json.value);
  if (result.success) {
    const at = controlCharacterAt(result.data);
    if (at !== undefined) {
      return { ok: false, message: `${at}: control characters (other than tab and line break) are not allowed` };
    }
    return { ok: true, value: result.data };
  }
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? issue.path.join('.') : 'the body';
  return { ok: false, message: `${where}: ${issue.message}` };
}

import type { FamilyParams } from '../core/family/family';
import type { Puzzle } from '../core/puzzle/puzzle';
import type { TaskId } from '../core/puzzle/tasks';

/**
 * Typed messages between the app and the generator worker. Every request carries an id; the
 * worker answers with the same id, either a result or an error message.
 */
export interface PuzzleRequestBody {
  readonly seed: string;
  readonly k: number;
  readonly task: TaskId;
  readonly family?: Partial<FamilyParams>;
}

export interface Requests {
  puzzle: { body: PuzzleRequestBody; result: Puzzle };
}

export type Command = keyof Requests;

export type WorkerRequest = {
  [C in Command]: { readonly id: number; readonly command: C; readonly body: Requests[C]['body'] };
}[Command];

export type WorkerResponse =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: string; readonly kind: string }
  | { readonly id: number; readonly progress: { readonly done: number; readonly total: number } };

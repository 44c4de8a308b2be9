/**
 * CLUTRR's tasks. A task with its story length is written `task.k` (`2.3` = supporting noise,
 * k = 3), as in the original generator and the released file names.
 */
export const TASKS = {
  1: { name: 'clean', description: 'the k facts of the proof path only' },
  2: { name: 'supporting', description: 'plus supporting facts: a detour between two path entities' },
  3: { name: 'irrelevant', description: 'plus irrelevant facts: a dangling path from one path entity' },
  4: { name: 'disconnected', description: 'plus disconnected facts: a path among people off the story path' },
  5: { name: 'all noise', description: 'supporting, irrelevant and disconnected facts together' },
  6: { name: 'memory', description: 'the answer is also stated as a fact of the story' },
  7: { name: 'clean or memory', description: 'a seeded mix of tasks 1 and 6' },
} as const;

export type TaskId = keyof typeof TASKS;
export const TASK_IDS: readonly TaskId[] = [1, 2, 3, 4, 5, 6, 7];

export function isTaskId(n: number): n is TaskId {
  return Number.isInteger(n) && n >= 1 && n <= 7;
}

/** The story lengths every part of the lab offers (explorer, builder, CLI, study designer). */
export const K_MIN = 1;
export const K_MAX = 10;

/** A task and a story length: `1.3`. */
export interface TaskSpec {
  readonly task: TaskId;
  readonly k: number;
}

export const taskName = (t: TaskSpec): string => `${t.task}.${t.k}`;

/**
 * Parses `1.2,1.3,2.4` into task specs. Throws an Error whose message names the bad item.
 */
export function parseTaskList(text: string, what = 'tasks'): TaskSpec[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (items.length === 0) throw new Error(`${what}: no task given (expected a list like 1.2,1.3)`);
  return items.map((item) => {
    const m = /^(\d+)\.(\d+)$/.exec(item);
    if (!m) throw new Error(`${what}: "${item}" is not of the form task.k (e.g. 1.3)`);
    const task = Number(m[1]);
    const k = Number(m[2]);
    if (!isTaskId(task)) throw new Error(`${what}: task ${task} in "${item}" is not one of 1–7`);
    if (k < K_MIN || k > K_MAX) {
      throw new Error(`${what}: k in "${item}" must be a whole number from ${K_MIN} to ${K_MAX}`);
    }
    return { task, k };
  });
}

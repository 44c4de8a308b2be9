/** What a classroom key does. */
export type ClassroomAction =
  'next' | 'back' | 'nextPuzzle' | 'previousPuzzle' | 'guess' | 'reveal' | 'fullscreen' | 'exit';

export interface KeyBinding {
  /** `KeyboardEvent.key` values that trigger the action. */
  readonly keys: readonly string[];
  readonly action: ClassroomAction;
  /** The keys as the on-screen help writes them. */
  readonly caps: string;
  /** What the help says the keys do. */
  readonly label: string;
}

/**
 * The classroom's keys, in the order the help lists them: the key handler and every on-screen
 * hint read this one table, so a key cannot work without being documented, or the reverse.
 */
export const CLASSROOM_KEYMAP: readonly KeyBinding[] = [
  { keys: ['ArrowRight', 'PageDown', ' '], action: 'next', caps: '→ / Space', label: 'next' },
  { keys: ['ArrowLeft', 'PageUp'], action: 'back', caps: '←', label: 'back' },
  { keys: ['n', 'N'], action: 'nextPuzzle', caps: 'N', label: 'next puzzle' },
  { keys: ['p', 'P'], action: 'previousPuzzle', caps: 'P', label: 'previous puzzle' },
  { keys: ['g', 'G'], action: 'guess', caps: 'G', label: "class's guess" },
  { keys: ['r', 'R'], action: 'reveal', caps: 'R', label: 'reveal' },
  { keys: ['f', 'F'], action: 'fullscreen', caps: 'F', label: 'full screen' },
  { keys: ['Escape'], action: 'exit', caps: 'Esc', label: 'exit' },
];

const BY_KEY = new Map(CLASSROOM_KEYMAP.flatMap((b) => b.keys.map((k) => [k, b.action] as const)));

/** The action of a key, or null when the classroom leaves the key alone. */
export function actionForKey(key: string): ClassroomAction | null {
  return BY_KEY.get(key) ?? null;
}

/** The keys of an action as the help writes them ("G"), for button captions. */
export function capsFor(action: ClassroomAction): string {
  return CLASSROOM_KEYMAP.find((b) => b.action === action)?.caps ?? '';
}

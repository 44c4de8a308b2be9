/**
 * The settings cannot produce a puzzle; the message says which setting and why. A module of its
 * own so that the command line's entry can tell this error apart without loading the engine
 * (cli/main.ts starts `generate`'s threads before the engine is loaded).
 */
export class GenerationError extends Error {
  override name = 'GenerationError';
}

import { renderPlain } from '../src/core/text/plain';
import type { StoryRenderer } from '../src/core/text/render';
import type { FlagSpec } from './args';

/** Flags that choose how stories are written (shared by generate and bench). */
export const RENDER_FLAGS: Record<string, FlagSpec> = {
  synthetic: { type: 'boolean', help: 'plain one-sentence-per-fact stories' },
};

/** The story renderer the flags ask for, and what config.json records of it. */
export function rendererFromFlags(flags: Record<string, unknown>): {
  render: StoryRenderer;
  describe: Record<string, unknown>;
} {
  void flags;
  return { render: renderPlain, describe: { text: 'synthetic' } };
}

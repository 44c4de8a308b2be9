import { datasetRenderer } from '../src/core/text/datasetText';
import type { StoryRenderer } from '../src/core/text/render';
import type { FlagSpec } from './args';
import { readTemplateSource } from './commands/templates';
import { UsageError } from './errors';

/** Flags that choose how stories are written. */
export const RENDER_FLAGS: Record<string, FlagSpec> = {
  templates: {
    type: 'string',
    help: 'paraphrases from a template file in the original format (amt_placeholders_clean.json or a .train/.test half)',
  },
  'template-split': { type: 'boolean', help: 'hold 20% of every paraphrase list out for the test rows' },
  'combination-length': { type: 'integer', help: 'most consecutive facts one paraphrase covers (1–3)', default: 3 },
  synthetic: { type: 'boolean', help: 'plain one-sentence-per-fact stories (ignores the paraphrases)' },
};

/** The story renderer the flags ask for (core's datasetRenderer), and what config.json records. */
export function rendererFromFlags(flags: Record<string, unknown>): {
  render: StoryRenderer;
  describe: Record<string, unknown>;
} {
  const length = flags['combination-length'];
  if (length !== 1 && length !== 2 && length !== 3) {
    throw new UsageError(`--combination-length must be 1, 2 or 3 (got ${String(length)})`);
  }
  if (flags.synthetic && (flags.templates || flags['template-split'])) {
    throw new UsageError('--synthetic writes plain sentences: it does not take --templates or --template-split');
  }
  const file = flags.templates as string | undefined;
  const source = file ? { name: file, ...readTemplateSource(file) } : undefined;
  const text = {
    synthetic: Boolean(flags.synthetic),
    combinationLength: length as 1 | 2 | 3,
    templateSplit: Boolean(flags['template-split']),
  };
  const { render, describe } = datasetRenderer(text, String(flags.seed ?? 1), source);
  return { render, describe };
}

import { OUR_BANK } from './bank';
import wide1 from './bank/wide-1.json' with { type: 'json' };
import wide2 from './bank/wide-2.json' with { type: 'json' };
import wide3 from './bank/wide-3.json' with { type: 'json' };
import { mergeBanks, type TemplateBank } from './templates';

/**
 * The wide files of our bank (bank/wide-1.json, wide-2.json, wide-3.json): our own sentences
 * that tell facts with plural and collective kin words ("her sons A and B", "A and B are C's
 * parents", "one of A's kids, B") and several facts a sentence. Linted by `lintWideTemplate`
 * (lint.ts), whose collective rules apply to these files only. Opt-in (`generate --bank wide`,
 * `npm run train -- --bank wide`): the default bank, and so the default output, is unchanged.
 */
export const WIDE_FILES: readonly TemplateBank[] = [wide1, wide2, wide3];

/** Our bank with the wide files' paraphrases added to its lists (ours first, then the wide ones). */
export const WIDE_BANK: TemplateBank = mergeBanks(OUR_BANK, ...WIDE_FILES);

/** The name a wide-bank dataset or model records (config.json `templates`, metadata). */
export const WIDE_BANK_NAME = 'clutrr-lab wide bank';

/** Which bank a dataset or model's stories come from: ours (the default) or ours plus the wide files. */
export const BANK_CHOICES = ['ours', 'wide'] as const;
export type BankChoice = (typeof BANK_CHOICES)[number];

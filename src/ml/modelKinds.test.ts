import { describe, expect, it } from 'vitest';
import {
  formatKind,
  indexEntry,
  MODEL_KINDS,
  modelFacts,
  modelKind,
  PAPER_MODEL_NAME,
  PAPER_MODELS,
  paperModelText,
  requireModelKind,
  SUPERVISION_TEXT,
  trainedOnText,
} from './modelKinds';

describe('the model-kind descriptor', () => {
  it('names what each model reads, what supervised it and which paper model it is', () => {
    const rows = Object.entries(MODEL_KINDS).map(([id, k]) => [id, k.reads, k.supervision, k.paperModel]);
    expect(rows).toEqual([
      ['gat', 'graph', 'answer', 'gat'],
      ['gat-improved', 'graph', 'answer+rule-pairs', null],
      ['gat-improved-answer-only', 'graph', 'answer', null],
      ['gat-pairs', 'graph', 'answer+rule-pairs', null],
      ['path-composer', 'graph', 'answer', null],
      ['lstm', 'text', 'answer', 'bilstmAttention'],
      ['lstm-mean', 'text', 'answer', 'bilstmMean'],
      ['rn', 'text', 'answer', 'rn'],
      ['mac', 'text', 'answer', 'mac'],
    ]);
  });

  it('calls a model a GAT only when it is the paper’s GAT', () => {
    for (const [id, k] of Object.entries(MODEL_KINDS)) {
      if (k.paperModel === 'gat') expect(k.label, id).toMatch(/GAT/);
      else expect(k.label, id).not.toMatch(/GAT/);
    }
    expect(MODEL_KINDS['gat-improved'].label).toBe('Relation composer, rule-supervised');
  });

  it('says the rule-base supervision in every description of a model trained with it', () => {
    for (const [id, k] of Object.entries(MODEL_KINDS)) {
      expect(k.description.length, id).toBeGreaterThan(40);
      if (k.supervision === 'answer+rule-pairs') expect(k.description, id).toMatch(/rule base.*unsound rules included/);
    }
    expect(SUPERVISION_TEXT['answer+rule-pairs']).toBe(
      "answer plus every pair's relation from the rule base, unsound rules included",
    );
  });

  it('the ablation is the same architecture with the answer only', () => {
    const ablation = MODEL_KINDS['gat-improved-answer-only'];
    const full = MODEL_KINDS[ablation.ablationOf];
    expect(ablation.architecture).toBe(full.architecture);
    expect(ablation.format).toBe(full.format);
    expect([ablation.supervision, full.supervision]).toEqual(['answer', 'answer+rule-pairs']);
  });

  it('text models read text and graph models the graph, by format', () => {
    for (const [id, k] of Object.entries(MODEL_KINDS)) {
      expect(formatKind(id)).toBe(k.format.replace('clutrr-lab/', ''));
      expect(k.reads, id).toBe(k.format === 'clutrr-lab/gat' ? 'graph' : 'text');
    }
  });

  it('looks ids up, refusing an unknown one by name', () => {
    expect(modelKind('lstm')?.label).toBe('BiLSTM-attention (paper)');
    expect(modelKind('bert')).toBeUndefined();
    expect(modelKind('toString')).toBeUndefined();
    expect(() => requireModelKind('bert', 'public/models/bert/1')).toThrow(
      /^public\/models\/bert\/1: unknown model "bert" \(known: gat, gat-improved, .*mac\)$/,
    );
    expect(Object.keys(modelFacts('gat'))).toEqual([
      'label',
      'reads',
      'supervision',
      'attention',
      'paperModel',
      'description',
    ]);
  });

  it('names the paper’s seven columns as Table 2 prints them', () => {
    expect(PAPER_MODELS.map((p) => PAPER_MODEL_NAME[p])).toEqual([
      'BiLSTM-attention',
      'BiLSTM-mean',
      'RN',
      'MAC',
      'BERT',
      'BERT-LSTM',
      'GAT',
    ]);
    expect(paperModelText(null)).toBe('not in the paper');
    expect(paperModelText('rn')).toBe('RN');
  });

  it('says what a folder was trained on', () => {
    expect(trainedOnText(indexEntry('gat', '1').trainedOn)).toBe(
      '5,000 clean puzzles per k, k = 2, 3; balanced patterns (--preset emnlp-systematic); our labels',
    );
    expect(trainedOnText({ noise: 'supporting', preset: 'none', labels: 'clutrr', rows: 6000, ks: [2, 3] })).toBe(
      "6,000 supporting-noise puzzles per k, k = 2, 3; unbalanced rows (before presets); CLUTRR's labels",
    );
    expect(indexEntry('lstm-mean', '1-irrelevant', { noise: 'irrelevant' }, 7)).toMatchObject({
      id: 'lstm-mean/1-irrelevant',
      kind: 'lstm',
      label: 'BiLSTM-mean (paper)',
      trainedOn: { noise: 'irrelevant', preset: 'emnlp-systematic' },
      weightBytes: 7,
    });
  });
});

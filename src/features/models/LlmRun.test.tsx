import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { LlmRun } from './LlmRun';

describe('LlmRun (the models view’s language-model curve)', () => {
  it('renders its form, and its button waits for an endpoint and a model name', () => {
    const html = renderToStaticMarkup(<LlmRun />);
    for (const id of [
      'models-llm',
      'llm-url',
      'llm-model',
      'llm-key',
      'llm-prompt',
      'models-llm-rows',
      'models-llm-run',
    ]) {
      expect(html).toContain(`data-testid="${id}"`);
    }
    expect(html).toMatch(/<button[^>]*data-testid="models-llm-run"[^>]*disabled=""/);
    expect(html).not.toContain('models-llm-k');
  });
});

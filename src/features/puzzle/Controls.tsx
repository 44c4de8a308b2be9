import { useId, useState, type FormEvent } from 'react';
import { DEFAULT_FAMILY } from '../../core/family/family';
import { TASK_IDS, TASKS, type TaskId } from '../../core/puzzle/tasks';
import { hrefForRoute } from '../../state/routes';
import { isImportedPuzzle, type ImportedPuzzle } from '../../core/formats/toPuzzle';
import { selectOrigin, selectPuzzle, selectSettings, selectStatus, selectTemplates } from '../../state/selectors';
import { DEFAULT_TEXT, K_MAX, K_MIN, searchFromSettings } from '../../state/settings';
import { useStore } from '../../state/useStore';
import type { StoryOrder } from '../../core/text/order';
import { MAX_SEED_LENGTH } from '../../core/puzzle/datasetOptions';
import { TemplateFilePicker } from '../../ui/TemplateFilePicker';
import './controls.css';
import './verdict.css';
import { TEMPLATE_MODES, type TemplateMode, textMode, withMode } from '../../state/settings';

const MODE_LABELS: Record<TemplateMode, string> = {
  paraphrase: 'Paraphrases (all)',
  train: 'Paraphrases, train half',
  test: 'Paraphrases, test half (held out)',
  synthetic: 'Synthetic: one plain sentence per fact',
};

const ks = Array.from({ length: K_MAX - K_MIN + 1 }, (_, i) => K_MIN + i);
const actions = () => useStore.getState();

/** A number input that commits only whole values in range, on change (the puzzle reloads). */
function NumberField(props: {
  label: string;
  value: number;
  min: number;
  max: number;
  step?: number;
  testId: string;
  onCommit: (v: number) => void;
}) {
  const id = useId();
  const [text, setText] = useState(String(props.value));
  // A new value from outside (the URL, another control) replaces what is typed: adjusted while
  // rendering, as React recommends, rather than in an effect after a render with the old text.
  const [shown, setShown] = useState(props.value);
  if (shown !== props.value) {
    setShown(props.value);
    setText(String(props.value));
  }
  const valid = (v: number) =>
    Number.isFinite(v) && v >= props.min && v <= props.max && (props.step ? true : Number.isInteger(v));
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        min={props.min}
        max={props.max}
        step={props.step ?? 1}
        value={text}
        data-testid={props.testId}
        aria-invalid={text !== '' && !valid(Number(text)) ? 'true' : undefined}
        onChange={(e) => {
          setText(e.target.value);
          const v = Number(e.target.value);
          if (e.target.value !== '' && valid(v)) props.onCommit(v);
        }}
        onBlur={() => setText(String(props.value))}
      />
    </div>
  );
}

/** "Generating…" while the worker works (its own component: Controls does not follow the status). */
function BusyMark() {
  const status = useStore(selectStatus);
  return (
    <span className="controls__busy" aria-hidden="true">
      {status === 'loading' ? 'Generating…' : ''}
    </span>
  );
}

/**
 * In place of the settings while an imported row is shown: which row it is. The settings make
 * generated puzzles; showing them beside a row they did not make would misname it.
 */
function ImportedRowBar({ puzzle }: { puzzle: ImportedPuzzle }) {
  const s = puzzle.source;
  return (
    <section className="controls imported-row" aria-label="Imported row" data-testid="imported-row" data-id={s.id}>
      <span className="imported-row__title">Imported row</span>
      <dl>
        <div>
          <dt>id</dt>
          <dd data-testid="imported-row-id">{s.id || '(none)'}</dd>
        </div>
        <div>
          <dt>task</dt>
          <dd data-testid="imported-row-task">{s.taskName || '(none)'}</dd>
        </div>
        <div>
          <dt>k</dt>
          <dd data-testid="imported-row-k">{puzzle.k}</dd>
        </div>
        <div>
          <dt>split</dt>
          <dd>{s.split || '(none)'}</dd>
        </div>
      </dl>
      <p className="imported-row__note">
        Read from a CSV file, not generated: no seed, k or task setting makes it. The settings come back with the
        generated puzzle.
      </p>
    </section>
  );
}

/** The puzzle's settings (seed, k, task, then the family and the text behind a disclosure), or the imported row shown. */
export function Controls() {
  const puzzle = useStore(selectPuzzle);
  const origin = useStore(selectOrigin);
  if (origin === 'external' && puzzle && isImportedPuzzle(puzzle)) return <ImportedRowBar puzzle={puzzle} />;
  return <Settings />;
}

function Settings() {
  const settings = useStore(selectSettings);
  const templates = useStore(selectTemplates);
  const [seed, setSeed] = useState(settings.seed);
  const [seedShown, setSeedShown] = useState(settings.seed);
  if (seedShown !== settings.seed) {
    setSeedShown(settings.seed);
    setSeed(settings.seed);
  }
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const ids = {
    seed: useId(),
    k: useId(),
    task: useId(),
    comb: useId(),
    mode: useId(),
    order: useId(),
    strict: useId(),
  };

  const submitSeed = (e: FormEvent) => {
    e.preventDefault();
    const s = seed.trim();
    if (s) actions().setSettings({ seed: s });
  };
  const copyLink = async () => {
    try {
      await navigator.clipboard.writeText(window.location.href);
      setCopied('copied');
      setTimeout(() => setCopied(null), 2500);
    } catch {
      // No clipboard permission: say so, and where the link is.
      setCopied('failed');
    }
  };
  const f = settings.family;
  // Open at first when the URL sets family or text settings, so the reader sees them.
  const [openAtStart] = useState(
    () =>
      f.maxLevels !== DEFAULT_FAMILY.maxLevels ||
      f.minChild !== DEFAULT_FAMILY.minChild ||
      f.maxChild !== DEFAULT_FAMILY.maxChild ||
      f.pMarry !== DEFAULT_FAMILY.pMarry ||
      textMode(settings.text) !== textMode(DEFAULT_TEXT) ||
      settings.text.combinationLength !== DEFAULT_TEXT.combinationLength ||
      settings.text.storyOrder !== DEFAULT_TEXT.storyOrder ||
      settings.strict === true ||
      templates !== null,
  );

  return (
    <section className="controls" aria-label="Puzzle settings">
      <form className="controls__row" onSubmit={submitSeed}>
        <div className="field">
          <label htmlFor={ids.seed}>Seed</label>
          <input
            id={ids.seed}
            className="field__seed"
            value={seed}
            data-testid="seed-input"
            maxLength={MAX_SEED_LENGTH}
            onChange={(e) => setSeed(e.target.value)}
            onBlur={submitSeed}
            spellCheck={false}
            autoComplete="off"
          />
        </div>
        <div className="field">
          <label htmlFor={ids.k}>Length k</label>
          <select
            id={ids.k}
            value={settings.k}
            data-testid="k-select"
            onChange={(e) => actions().setSettings({ k: Number(e.target.value) })}
          >
            {ks.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.task}>Task</label>
          <select
            id={ids.task}
            value={settings.task}
            data-testid="task-select"
            onChange={(e) => actions().setSettings({ task: Number(e.target.value) as TaskId })}
          >
            {TASK_IDS.map((t) => (
              <option key={t} value={t}>
                {t} · {TASKS[t].name}
              </option>
            ))}
          </select>
        </div>
        <div className="controls__buttons">
          <button
            type="button"
            className="button button--primary"
            data-testid="new-puzzle"
            onClick={() => actions().newPuzzle()}
          >
            New puzzle
          </button>
          <button type="button" className="button" onClick={copyLink} data-testid="copy-link">
            {copied === 'copied' ? 'Link copied' : 'Copy link'}
          </button>
          <span className="controls__copied" role="status" data-testid="copy-link-status">
            {copied === 'copied'
              ? 'Link copied to the clipboard.'
              : copied === 'failed'
                ? 'Could not copy: the link is the address in the address bar.'
                : ''}
          </span>
          <a
            className="button"
            href={hrefForRoute('classroom', searchFromSettings(settings))}
            data-testid="open-classroom"
          >
            Present
          </a>
        </div>
        <BusyMark />
      </form>
      {templates?.source && (
        <p className="controls__note" data-testid="template-link-note">
          Links don’t carry the template file: a copied link opens with our bank.
        </p>
      )}
      <details className="controls__more" open={openAtStart || undefined}>
        <summary>Family and text settings</summary>
        <div className="controls__row">
          <NumberField
            label="Generations (max-levels)"
            value={f.maxLevels}
            min={1}
            max={6}
            testId="max-levels"
            onCommit={(v) => actions().setFamily({ maxLevels: v })}
          />
          <NumberField
            label="Min children"
            value={f.minChild}
            min={0}
            max={8}
            testId="min-child"
            onCommit={(v) => actions().setFamily({ minChild: v })}
          />
          <NumberField
            label="Max children"
            value={f.maxChild}
            min={0}
            max={8}
            testId="max-child"
            onCommit={(v) => actions().setFamily({ maxChild: v })}
          />
          <NumberField
            label="P(marry)"
            value={f.pMarry}
            min={0}
            max={1}
            step={0.05}
            testId="p-marry"
            onCommit={(v) => actions().setFamily({ pMarry: v })}
          />
          <div className="toggle">
            <input
              id={ids.strict}
              type="checkbox"
              checked={settings.strict === true}
              data-testid="strict-toggle"
              onChange={(e) => actions().setSettings({ strict: e.target.checked })}
            />
            <label
              htmlFor={ids.strict}
              title="Proofs and the uniqueness check use only the rules sound in every family"
            >
              Strict (sound rules only)
            </label>
          </div>
          <div className="field">
            <label htmlFor={ids.comb}>Facts per paraphrase</label>
            <select
              id={ids.comb}
              value={settings.text.combinationLength}
              data-testid="comb-select"
              onChange={(e) => actions().setText({ combinationLength: Number(e.target.value) as 1 | 2 | 3 })}
            >
              {[1, 2, 3].map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.order}>Story order</label>
            <select
              id={ids.order}
              value={settings.text.storyOrder}
              data-testid="order-select"
              onChange={(e) => actions().setText({ storyOrder: e.target.value as StoryOrder })}
            >
              <option value="shuffled">Shuffled, as in CLUTRR's datasets</option>
              <option value="path">Path order (for teaching)</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.mode}>Templates</label>
            <select
              id={ids.mode}
              value={textMode(settings.text)}
              data-testid="mode-select"
              onChange={(e) => actions().setText(withMode(settings.text, e.target.value as TemplateMode))}
            >
              {TEMPLATE_MODES.map((m) => (
                <option key={m} value={m}>
                  {MODE_LABELS[m]}
                </option>
              ))}
            </select>
          </div>
        </div>
        <TemplateFilePicker
          value={templates}
          onChange={(reading) => actions().setTemplates(reading)}
          disabled={settings.text.synthetic}
          label="Template file"
        />
      </details>
    </section>
  );
}

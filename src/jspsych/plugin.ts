/**
 * `plugin-clutrr`: one CLUTRR puzzle as a jsPsych 8 trial. The puzzle is generated in the page
 * with our engine (puzzle.ts), so a seed gives the puzzle a CLUTRR Lab study shows for it. The
 * screen keeps the study's testids (`trial-story`, `trial-question`, `answer-option` with
 * `data-relation`, `difficulty-option` with `data-value`, `countdown`, `submit-answer`,
 * `practice-feedback` + `continue`); plain DOM, so the script carries no UI framework.
 *
 * Keyboard: Tab reaches every control; arrow keys move among the words; Space or Enter on a word
 * picks it; digits 1–5 rate the difficulty; once the answer (and rating) is given Enter submits.
 */
import { ParameterType, type JsPsych, type JsPsychPlugin, type TrialType } from 'jspsych';
import { RELATION_WORDS } from '../core/kinship/relations';
import { isTaskId, type TaskId } from '../core/puzzle/tasks';
import type { Phase } from '../study/schedule/items';
import { DISPLAYS, TEMPLATE_SPLITS, type Display, type TemplateSplit } from '../study/definition/vocabulary';
import { drawFacts } from './drawing';
import { makeClutrrPuzzle, type StoryOrder } from './puzzle';
import { ensureStyles } from './styles';

const info = {
  name: 'clutrr',
  version: '1.0.0',
  parameters: {
    /** The puzzle's seed (a whole number 0 to 2^32 - 1): the same seed gives the same puzzle. */
    seed: { type: ParameterType.INT, default: undefined },
    /** Story length: kinship hops between the two people asked about (1–10). */
    k: { type: ParameterType.INT, default: 2 },
    /** CLUTRR task 1–7 (which noise facts the story holds). */
    task: { type: ParameterType.INT, default: 1 },
    /** Strictly solvable puzzles only (sound rules). */
    strict: { type: ParameterType.BOOL, default: true },
    /** Paraphrases: `all`, or the `train` / `test` half of the seeded 80/20 template split. */
    template_split: { type: ParameterType.STRING, default: 'all' },
    /** `shuffled` (as studies and datasets tell stories) or `path` (facts in the order of the chain). */
    story_order: { type: ParameterType.STRING, default: 'shuffled' },
    /** `text`, or `text+drawing` (the stated facts drawn below the story). */
    display: { type: ParameterType.STRING, default: 'text' },
    /** Seconds to answer, with a visible countdown; null for none. The trial ends with `ended_on: "timeout"`. */
    time_limit: { type: ParameterType.FLOAT, default: null },
    /** Ask for a difficulty rating 1–5 before submitting. */
    ask_difficulty: { type: ParameterType.BOOL, default: true },
    /** After the answer, say whether it was right and what the answer was (practice). */
    feedback: { type: ParameterType.BOOL, default: false },
    /** `main`, `practice` or `check` (an attention check: the question asks for another word). */
    phase: { type: ParameterType.STRING, default: 'main' },
    /** The puzzle's id in the data; default `k<k>-t<task>-s<seed>`. */
    puzzle_id: { type: ParameterType.STRING, default: null },
  },
  data: {
    /** The right relation word. */
    gold: { type: ParameterType.STRING },
    /** The word chosen; empty after a timeout. */
    response: { type: ParameterType.STRING },
    correct: { type: ParameterType.BOOL },
    /** 1–5, or null (not asked, or timeout). */
    difficulty: { type: ParameterType.INT },
    /** Milliseconds from the story shown to the answer submitted (or the time limit). */
    rt_ms: { type: ParameterType.INT },
    /** jsPsych's usual `rt`: the same as `rt_ms`. */
    rt: { type: ParameterType.INT },
    /** `response` or `timeout`. */
    ended_on: { type: ParameterType.STRING },
    k: { type: ParameterType.INT },
    task: { type: ParameterType.INT },
    seed: { type: ParameterType.INT },
    strict: { type: ParameterType.BOOL },
    phase: { type: ParameterType.STRING },
    puzzle_id: { type: ParameterType.STRING },
    query_a: { type: ParameterType.STRING },
    query_b: { type: ParameterType.STRING },
    /** The story as shown. */
    story: { type: ParameterType.STRING },
    question: { type: ParameterType.STRING },
    time_limit_s: { type: ParameterType.FLOAT },
    /** Switches from one picked word to another (the first pick is not a change). */
    answer_changes: { type: ParameterType.INT },
    /** Milliseconds the page was hidden (another tab or app) during the trial. */
    hidden_ms: { type: ParameterType.INT },
    /** When the story was shown and when the trial ended (ISO 8601, the participant's clock). */
    started_at: { type: ParameterType.STRING },
    answered_at: { type: ParameterType.STRING },
    display: { type: ParameterType.STRING },
    template_split: { type: ParameterType.STRING },
    story_order: { type: ParameterType.STRING },
  },
} as const;

type Info = typeof info;

/** The data row of one CLUTRR trial (what `finishTrial` records). */
export interface ClutrrTrialData {
  gold: string;
  response: string;
  correct: boolean;
  difficulty: number | null;
  rt_ms: number;
  rt: number;
  ended_on: 'response' | 'timeout';
  k: number;
  task: number;
  seed: number;
  strict: boolean;
  phase: string;
  puzzle_id: string;
  query_a: string;
  query_b: string;
  story: string;
  question: string;
  time_limit_s: number | null;
  answer_changes: number;
  hidden_ms: number;
  started_at: string;
  answered_at: string;
  display: string;
  template_split: string;
  story_order: string;
}

/** The parameters, checked: a bad one throws a message naming it and what it must be. */
interface ClutrrSettings {
  seed: number;
  k: number;
  task: TaskId;
  strict: boolean;
  template_split: TemplateSplit;
  story_order: StoryOrder;
  display: Display;
  time_limit: number | null;
  ask_difficulty: boolean;
  feedback: boolean;
  phase: Phase;
  puzzle_id: string;
}

export function checkTrial(t: Partial<Record<keyof Info['parameters'], unknown>>): ClutrrSettings {
  const bad = (name: string, must: string, got: unknown): never => {
    throw new Error(`plugin-clutrr: ${name} must be ${must} (got ${JSON.stringify(got) ?? String(got)})`);
  };
  const oneOf = <T extends string>(name: string, values: readonly T[], v: unknown): T =>
    (values as readonly unknown[]).includes(v) ? (v as T) : bad(name, values.join(' | '), v);
  const seed = t.seed;
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    return bad('seed', 'a whole number 0 to 4294967295', seed);
  }
  const k = t.k ?? 2;
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > 10) return bad('k', 'a whole number 1 to 10', k);
  const task = t.task ?? 1;
  if (typeof task !== 'number' || !isTaskId(task)) return bad('task', 'a whole number 1 to 7', task);
  const timeLimit = t.time_limit ?? null;
  if (timeLimit !== null && !(typeof timeLimit === 'number' && timeLimit > 0 && Number.isFinite(timeLimit))) {
    return bad('time_limit', 'a number of seconds above 0, or null', timeLimit);
  }
  const bool = (name: string, v: unknown, fallback: boolean): boolean =>
    v === undefined ? fallback : typeof v === 'boolean' ? v : bad(name, 'true or false', v);
  const puzzleId = t.puzzle_id ?? `k${k}-t${task}-s${seed}`;
  if (typeof puzzleId !== 'string') return bad('puzzle_id', 'a text', puzzleId);
  return {
    seed,
    k,
    task,
    strict: bool('strict', t.strict, true),
    template_split: oneOf('template_split', TEMPLATE_SPLITS, t.template_split ?? 'all'),
    story_order: oneOf<StoryOrder>('story_order', ['shuffled', 'path'], t.story_order ?? 'shuffled'),
    display: oneOf('display', DISPLAYS, t.display ?? 'text'),
    time_limit: timeLimit,
    ask_difficulty: bool('ask_difficulty', t.ask_difficulty, true),
    feedback: bool('feedback', t.feedback, false),
    phase: oneOf<Phase>('phase', ['main', 'practice', 'check'], t.phase ?? 'main'),
    puzzle_id: puzzleId,
  };
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

class ClutrrPlugin implements JsPsychPlugin<Info> {
  static info = info;

  constructor(private jsPsych: JsPsych) {}

  trial(display_element: HTMLElement, params: TrialType<Info>): void {
    const trial = checkTrial(params);
    const puzzleId = trial.puzzle_id;
    const { content, puzzle } = makeClutrrPuzzle({
      seed: trial.seed,
      k: trial.k,
      task: trial.task,
      strict: trial.strict,
      templateSplit: trial.template_split,
      storyOrder: trial.story_order,
      phase: trial.phase,
      puzzleId,
    });
    ensureStyles();

    let response: string | null = null;
    let difficulty: number | null = null;
    let changes = 0;
    let done = false;

    const root = el('div', { class: 'clutrr-trial', 'data-testid': 'clutrr-trial' });
    root.append(el('p', { class: 'clutrr-story', 'data-testid': 'trial-story' }, content.story));
    if (trial.display === 'text+drawing') root.append(drawFacts(puzzle));
    root.append(
      el('p', { class: 'clutrr-question', 'data-testid': 'trial-question', id: 'clutrr-question' }, content.question),
    );

    const grid = el('div', { class: 'clutrr-words', role: 'group', 'aria-labelledby': 'clutrr-question' });
    const wordButtons = RELATION_WORDS.map((word) => {
      const b = el(
        'button',
        {
          type: 'button',
          class: 'clutrr-word',
          'data-testid': 'answer-option',
          'data-relation': word,
          'aria-pressed': 'false',
        },
        word,
      );
      b.addEventListener('click', () => pick(word));
      grid.append(b);
      return b;
    });
    grid.addEventListener('keydown', (e) => moveAmongWords(e));
    root.append(grid);

    const ratingButtons: HTMLButtonElement[] = [];
    if (trial.ask_difficulty) {
      const rating = el('div', { class: 'clutrr-rating', role: 'group', 'aria-labelledby': 'clutrr-rating-label' });
      rating.append(
        el(
          'span',
          { id: 'clutrr-rating-label', class: 'clutrr-rating-label' },
          'How hard was it? 1 very easy – 5 very hard',
        ),
      );
      for (let v = 1; v <= 5; v++) {
        const b = el(
          'button',
          {
            type: 'button',
            class: 'clutrr-rate',
            'data-testid': 'difficulty-option',
            'data-value': String(v),
            'aria-pressed': 'false',
          },
          String(v),
        );
        b.addEventListener('click', () => rate(v));
        rating.append(b);
        ratingButtons.push(b);
      }
      root.append(rating);
    }

    const bar = el('div', { class: 'clutrr-bar' });
    const countdown =
      trial.time_limit === null
        ? null
        : el('span', { class: 'clutrr-countdown', 'data-testid': 'countdown', role: 'timer' });
    if (countdown) bar.append(countdown);
    const hint = el('span', { class: 'clutrr-hint', 'aria-live': 'polite' });
    const submit = el('button', { type: 'button', class: 'clutrr-submit', 'data-testid': 'submit-answer' }, 'Submit');
    submit.disabled = true;
    submit.addEventListener('click', () => finish('response'));
    bar.append(hint, submit);
    root.append(bar);

    display_element.replaceChildren(root);
    const start = performance.now();
    const startedAt = new Date().toISOString();
    // Time with the page hidden, as the study's rows measure it.
    let hiddenMs = 0;
    let hiddenSince = document.hidden ? performance.now() : null;
    const onVisibility = () => {
      if (document.hidden) hiddenSince ??= performance.now();
      else if (hiddenSince !== null) {
        hiddenMs += performance.now() - hiddenSince;
        hiddenSince = null;
      }
    };
    document.addEventListener('visibilitychange', onVisibility);

    const ready = () => response !== null && (!trial.ask_difficulty || difficulty !== null);
    const refresh = () => {
      for (const b of wordButtons) b.setAttribute('aria-pressed', String(b.dataset.relation === response));
      for (const b of ratingButtons) b.setAttribute('aria-pressed', String(Number(b.dataset.value) === difficulty));
      submit.disabled = !ready();
      hint.textContent = ready()
        ? 'Enter submits'
        : response === null
          ? 'Pick a relation word'
          : 'Rate the difficulty (1–5)';
    };
    function pick(word: string) {
      if (done) return;
      if (response !== null && response !== word) changes++;
      response = word;
      refresh();
    }
    function rate(v: number) {
      if (done) return;
      difficulty = v;
      refresh();
    }
    refresh();

    /** Columns as laid out: buttons sharing the first button's top. */
    const columns = () => {
      const top = wordButtons[0]!.offsetTop;
      return Math.max(1, wordButtons.filter((b) => b.offsetTop === top).length);
    };
    function moveAmongWords(e: KeyboardEvent) {
      const at = wordButtons.indexOf(document.activeElement as HTMLButtonElement);
      if (at < 0) return;
      const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns(), ArrowUp: -columns() }[e.key];
      if (step === undefined) return;
      e.preventDefault();
      const next = Math.min(wordButtons.length - 1, Math.max(0, at + step));
      wordButtons[next]!.focus();
    }

    const onKey = (e: KeyboardEvent) => {
      if (done || e.defaultPrevented) return;
      if (trial.ask_difficulty && /^[1-5]$/.test(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) {
        rate(Number(e.key));
        e.preventDefault();
        return;
      }
      if (e.key === 'Enter' && ready()) {
        e.preventDefault();
        finish('response');
      }
    };
    document.addEventListener('keydown', onKey);

    let ticker: number | undefined;
    if (trial.time_limit !== null && countdown) {
      const limitMs = trial.time_limit * 1000;
      const tick = () => {
        const left = Math.max(0, Math.ceil((limitMs - (performance.now() - start)) / 1000));
        countdown.textContent = `${left} s left`;
      };
      tick();
      ticker = window.setInterval(tick, 250);
      this.jsPsych.pluginAPI.setTimeout(() => finish('timeout'), limitMs);
    }

    const finish = (endedOn: 'response' | 'timeout') => {
      if (done || (endedOn === 'response' && !ready())) return;
      done = true;
      const rt = Math.round(performance.now() - start);
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('visibilitychange', onVisibility);
      if (hiddenSince !== null) hiddenMs += performance.now() - hiddenSince;
      if (ticker !== undefined) window.clearInterval(ticker);
      this.jsPsych.pluginAPI.clearAllTimeouts();
      const answered = endedOn === 'response' ? response! : '';
      const data: ClutrrTrialData = {
        gold: content.gold,
        response: answered,
        correct: answered === content.gold,
        difficulty: endedOn === 'response' && trial.ask_difficulty ? difficulty : null,
        rt_ms: rt,
        rt,
        ended_on: endedOn,
        k: trial.k,
        task: trial.task,
        seed: trial.seed,
        strict: trial.strict,
        phase: trial.phase,
        puzzle_id: puzzleId,
        query_a: content.queryA,
        query_b: content.queryB,
        story: content.story,
        question: content.question,
        time_limit_s: trial.time_limit,
        answer_changes: changes,
        hidden_ms: Math.round(hiddenMs),
        started_at: startedAt,
        answered_at: new Date().toISOString(),
        display: trial.display,
        template_split: trial.template_split,
        story_order: trial.story_order,
      };
      if (trial.feedback) this.showFeedback(display_element, data);
      else this.jsPsych.finishTrial(data as unknown as Record<string, unknown>);
    };
  }

  /** Right or wrong and the answer; `continue` (or Enter) ends the trial. */
  private showFeedback(display_element: HTMLElement, data: ClutrrTrialData): void {
    const box = el('div', {
      class: 'clutrr-trial clutrr-feedback',
      'data-testid': 'practice-feedback',
      role: 'status',
    });
    const verdict =
      data.ended_on === 'timeout'
        ? `Time is up. ${data.query_b} is ${data.query_a}'s ${data.gold}.`
        : data.correct
          ? `Right: ${data.query_b} is ${data.query_a}'s ${data.gold}.`
          : `Not quite: ${data.query_b} is ${data.query_a}'s ${data.gold} (you answered ${data.response}).`;
    box.append(el('p', {}, verdict));
    const next = el('button', { type: 'button', class: 'clutrr-submit', 'data-testid': 'continue' }, 'Continue');
    box.append(next);
    display_element.replaceChildren(box);
    next.focus();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      document.removeEventListener('keydown', onKey);
      this.jsPsych.finishTrial(data as unknown as Record<string, unknown>);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        end();
      }
    };
    next.addEventListener('click', end);
    // The Enter that submitted the answer must not also continue: listen from the next turn.
    window.setTimeout(() => document.addEventListener('keydown', onKey), 0);
  }
}

export default ClutrrPlugin;

/**
 * What a trial shows and records, from the one puzzle pipeline.
 *
 * The participant's page asks the generator worker for each item's puzzle with
 * `storyRequest(def, item)`: the same generator and the same story writer as datasets (our
 * paraphrase bank, up to three facts per paraphrase, sentences in a seeded shuffled order, the
 * study's template half). `trialContent` then turns the puzzle and its story into the trial: the
 * story as plain text, the question, the query names and the gold word. An attention check asks,
 * inside its question, for a word chosen from the item's seed (never the true answer); that
 * word is its gold.
 *
 * Node and the browser agree: the story is a pure function of the request (see
 * `participant/trialContent.test.ts`, which runs the worker's own handler).
 */
import { RELATION_WORDS, type RelationWord } from '../../core/kinship/relations';
import type { PuzzleRecord } from '../../core/puzzle/puzzle';
import type { TaskId } from '../../core/puzzle/tasks';
import { createRng } from '../../core/random/rng';
import type { TextSettings } from '../../core/text/datasetText';
import { unbracket, type RenderedStory, type Split } from '../../core/text/render';
import type { StudyDefinition } from '../definition/types';
import type { Phase, StudyItem } from './items';

/** The text settings of a study's stories, with the half shown (the worker's `ExplorerText` shape). */
export interface StudyText extends TextSettings {
  readonly half: Split;
}

/** The body of the generator worker's `story` command for an item. */
export interface StudyStoryRequest {
  readonly seed: string;
  readonly k: number;
  readonly task: TaskId;
  readonly strict: boolean;
  readonly text: StudyText;
}

/**
 * Datasets' text settings (the CLI's defaults): paraphrases from our bank, up to 3 facts per
 * paraphrase, sentences shuffled; `train`/`test` studies tell stories with that half of the
 * seeded 80/20 template split only.
 */
export function studyText(def: Pick<StudyDefinition, 'templateSplit'>): StudyText {
  return {
    synthetic: false,
    combinationLength: 3,
    templateSplit: def.templateSplit !== 'all',
    storyOrder: 'shuffled',
    half: def.templateSplit === 'test' ? 'test' : 'train',
  };
}

/** The generator request for one study item. */
export function storyRequest(def: StudyDefinition, item: StudyItem): StudyStoryRequest {
  return { seed: String(item.seed), k: item.k, task: item.task, strict: def.strict, text: studyText(def) };
}

/** What one trial shows and what its row records about the puzzle. */
export interface TrialContent {
  readonly puzzleId: string;
  readonly phase: Phase;
  /** The story as shown (names without CLUTRR's brackets); also the row's `story`. */
  readonly story: string;
  /** The question as shown; an attention check's carries its instruction. */
  readonly question: string;
  /** First query person (the question asks how B is related to A). */
  readonly queryA: string;
  readonly queryB: string;
  /** The right word: the puzzle's target, or the word an attention check asks for. */
  readonly gold: RelationWord;
}

/** The attention check's instruction, before the question. */
export const checkInstruction = (word: string) =>
  `To show you read carefully, answer “${word}” whatever the story says.`;

/**
 * The word an attention check asks for: drawn from the item's seed among the relation words,
 * never the puzzle's true answer (a careless participant who solved it would pass otherwise).
 */
export function checkWord(item: Pick<StudyItem, 'seed'>, answer: RelationWord): RelationWord {
  const others = RELATION_WORDS.filter((w) => w !== answer);
  return createRng(item.seed, 'attention-check').pick(others);
}

/** The trial for an item, from its puzzle and the story the generator wrote for it. */
export function trialContent(puzzle: PuzzleRecord, story: RenderedStory, item: StudyItem): TrialContent {
  const queryA = puzzle.entities[puzzle.query[0]]!.name;
  const queryB = puzzle.entities[puzzle.query[1]]!.name;
  const ask = `How is ${queryB} related to ${queryA}?`;
  const isCheck = item.phase === 'check';
  const gold = isCheck ? checkWord(item, puzzle.target.word) : puzzle.target.word;
  return {
    puzzleId: item.puzzleId,
    phase: item.phase,
    story: unbracket(story.story),
    question: isCheck ? `${checkInstruction(gold)} ${ask}` : ask,
    queryA,
    queryB,
    gold,
  };
}

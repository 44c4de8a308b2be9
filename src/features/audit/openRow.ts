import type { ClutrrRow } from '../../core/formats/clutrrRow';
import { rowToPuzzle, rowToStory } from '../../core/formats/toPuzzle';
import { openPuzzleInExplorer } from '../../state/open';

/**
 * Opens an imported row in the puzzle view: its graph from the symbolic columns (rowToPuzzle),
 * its story as written (rowToStory). Resolves with the conversion's warnings; throws a
 * CsvFormatError when the row cannot be drawn (an unknown relation word).
 */
export async function openRowInExplorer(row: ClutrrRow): Promise<readonly string[]> {
  const puzzle = rowToPuzzle(row);
  await openPuzzleInExplorer(puzzle, rowToStory(row, puzzle));
  return puzzle.warnings;
}

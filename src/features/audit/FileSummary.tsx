import type { VerdictCounts } from '../../core/formats/audit';
import { CountCells, CountHeads } from './CountCells';
import type { FileSummary as FileLine } from './summary';

/** Verdict counts per file, malformed files marked with where they fail, and the total when there are several. */
export function FileSummary({ files, total }: { files: readonly FileLine[]; total: VerdictCounts }) {
  return (
    <table className="audit__table">
      <caption>Per file</caption>
      <thead>
        <tr>
          <th scope="col">File</th>
          <CountHeads />
        </tr>
      </thead>
      <tbody>
        {files.map((f) => (
          <tr key={f.file} data-testid="audit-summary-file" data-file={f.file}>
            <th scope="row" className="audit__file">
              {f.file}
            </th>
            {f.error ? (
              <td colSpan={7} className="audit__malformed">
                malformed{f.error.row !== undefined || f.error.column !== undefined ? ': ' : ''}
                {[
                  f.error.row !== undefined ? `row ${f.error.row}` : undefined,
                  f.error.column !== undefined ? `column ${f.error.column}` : undefined,
                ]
                  .filter((p) => p !== undefined)
                  .join(', ')}
              </td>
            ) : (
              <CountCells c={f} />
            )}
          </tr>
        ))}
      </tbody>
      {files.length > 1 && (
        <tfoot>
          <tr>
            <th scope="row">All files</th>
            <CountCells c={total} />
          </tr>
        </tfoot>
      )}
    </table>
  );
}

import { DropZone } from './DropZone';
import { FileErrors } from './FileErrors';
import { RowsTable } from './RowsTable';
import { StatsPanel } from './StatsPanel';
import { useAudit } from './store';
import { Summary } from './Summary';
import './audit.css';
import { ViewHeader } from '../../ui/ViewHeader';

/**
 * Import and audit (`#/audit`): drop CLUTRR CSV files or a dataset zip; every row is solved from
 * its symbolic columns in a worker and shown with its verdict; any row opens in the puzzle view.
 */
export function AuditView() {
  const files = useAudit((s) => s.files);
  const clear = useAudit((s) => s.clear);
  return (
    <div className="audit page page--form" data-testid="audit-view">
      <ViewHeader title="Import and audit" className="audit__head">
        As <code>npm run cli -- check</code>: each row is solved from story_edges, edge_types, genders and query_edge
        (edges without a type are left out). <em>Entailed</em>: the rule base derives exactly the label;{' '}
        <em>ambiguous</em>: the label among other answers; <em>unsupported</em>: not the label. Of the entailed rows,{' '}
        <em>assumed</em> ones follow only through one of the rule base's two assumption rules (my child's uncle or aunt
        is my sibling; my child's grandparent is my parent), and some of those have a label that is{' '}
        <em>true in no family</em> where the facts hold.
      </ViewHeader>
      <DropZone />
      <FileErrors />
      <Summary />
      <StatsPanel />
      <RowsTable />
      {files.length > 0 && (
        <div>
          <button type="button" onClick={clear} data-testid="audit-clear">
            Clear all files
          </button>
        </div>
      )}
    </div>
  );
}

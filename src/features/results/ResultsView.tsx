import { AdaptiveThresholds } from './AdaptiveThresholds';
import { CollectionPanel } from './CollectionPanel';
import { DropZone } from './DropZone';
import { FileList } from './FileList';
import { Figures } from './Figures';
import { IrtPanel } from './IrtPanel';
import { ItemsTable } from './ItemsTable';
import { ModelsCompare } from './ModelsCompare';
import { ParticipantsTable } from './ParticipantsTable';
import { ServerFetch } from './ServerFetch';
import { useResults } from './store';
import './results.css';
import { ViewHeader } from '../../ui/ViewHeader';

/**
 * The results dashboard (`#/results`): load result files (or fetch them from a results server),
 * then accuracy, response time and difficulty with 95% intervals beside the paper's Table 3, the
 * participants (flagged ones marked), an adaptive study's thresholds and the items.
 */
export function ResultsView() {
  const hasRows = useResults((s) => s.merged.rows > 0);
  // Paraphrase and review rows only: the puzzle figures (accuracy by k…) would say nothing.
  const collectionOnly = useResults((s) => s.collectionOnly);
  return (
    <div className="results page" data-testid="results-view">
      <ViewHeader title="Results">
        Figures from your study&apos;s result files, held against the human study of the CLUTRR paper (Sinha et al.
        2019, Table 3). Files are read in this page and sent nowhere.
      </ViewHeader>
      <DropZone />
      <ServerFetch />
      <FileList />
      {hasRows ? (
        <>
          <CollectionPanel />
          {!collectionOnly && <Figures />}
          <ParticipantsTable />
          {!collectionOnly && <AdaptiveThresholds />}
          {!collectionOnly && (
            <>
              <ItemsTable />
              <ModelsCompare />
              <IrtPanel />
            </>
          )}
        </>
      ) : (
        <p className="hint" data-testid="results-empty">
          No rows yet: load a file to see the figures.
        </p>
      )}
    </div>
  );
}

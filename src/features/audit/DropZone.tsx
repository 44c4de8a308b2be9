import { useId, useState } from 'react';
import { formatBytes } from '../../ui/format';
import { useAudit } from './store';

/** The drop zone: drag files onto it, or choose them with the file input inside it. */
export function DropZone() {
  const id = useId();
  const importFiles = useAudit((s) => s.importFiles);
  const reading = useAudit((s) => s.reading);
  const progress = useAudit((s) => s.progress);
  const [over, setOver] = useState(false);
  return (
    <div
      className={`au-drop${over ? ' au-drop--over' : ''}`}
      data-testid="audit-dropzone"
      onDragEnter={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        void importFiles([...e.dataTransfer.files]);
      }}
    >
      <p className="au-drop-title">Drop CLUTRR CSV files or a dataset folder zip here</p>
      <label htmlFor={id} className="au-drop-label">
        or choose files (.csv, .zip)
      </label>
      <input
        id={id}
        data-testid="audit-drop"
        type="file"
        multiple
        accept=".csv,.zip,text/csv,application/zip"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          void importFiles(files);
        }}
      />
      {reading.length > 0 && (
        <p className="au-hint" role="status" data-testid="audit-reading">
          Reading {reading.join(', ')}
          {progress && progress.total > 1 ? ` (${formatBytes(progress.done)} of ${formatBytes(progress.total)})` : ''}…
          {progress && <progress aria-label="Files read" max={Math.max(1, progress.total)} value={progress.done} />}
        </p>
      )}
    </div>
  );
}

import { useId, useState } from 'react';
import { useResults } from './store';

/** Drop result files here, or choose them with the file input inside (CSV or JSON, any number). */
export function DropZone() {
  const id = useId();
  const importFiles = useResults((s) => s.importFiles);
  const reading = useResults((s) => s.reading);
  const [over, setOver] = useState(false);
  return (
    <div
      className={`rs-drop${over ? ' rs-drop--over' : ''}`}
      data-testid="results-dropzone"
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
      <p className="rs-drop-title">Drop result files here</p>
      <label htmlFor={id} className="rs-drop-label">
        or choose files: the CSV or JSON a participant downloads, a JATOS export's rows, or the results server&apos;s
        export (any number; a session in several files counts once)
      </label>
      <input
        id={id}
        data-testid="results-drop"
        type="file"
        multiple
        accept=".csv,.json,text/csv,application/json"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          void importFiles(files);
        }}
      />
      {reading.length > 0 && (
        <p className="rs-hint" role="status" data-testid="results-reading">
          Reading {reading.join(', ')}…
        </p>
      )}
    </div>
  );
}

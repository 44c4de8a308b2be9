import { useId, useState, type ReactNode } from 'react';
import { formatBytes } from '../core/util/format';
import './fileDropZone.css';

export interface FileDropZoneProps {
  /** Called with the files dropped or chosen (the input is cleared, so the same file can come again). */
  readonly onFiles: (files: File[]) => void;
  readonly title: ReactNode;
  /** The file input's label: what kinds of files. */
  readonly label: ReactNode;
  /** The input's `accept`. */
  readonly accept: string;
  /** Testids: `<prefix>-dropzone` (the zone), `<prefix>-drop` (the input), `<prefix>-reading` (status). */
  readonly testIdPrefix: string;
  /** Names of the files being read; the status line shows while there are any. */
  readonly reading: readonly string[];
  /** Bytes read so far, when the reader reports them. */
  readonly progress?: { readonly done: number; readonly total: number } | null;
}

/** A zone to drag files onto, with a file input inside it for the keyboard and for phones. */
export function FileDropZone({ onFiles, title, label, accept, testIdPrefix, reading, progress }: FileDropZoneProps) {
  const id = useId();
  const [over, setOver] = useState(false);
  return (
    <div
      className={`file-drop${over ? ' file-drop--over' : ''}`}
      data-testid={`${testIdPrefix}-dropzone`}
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
        onFiles([...e.dataTransfer.files]);
      }}
    >
      <p className="file-drop__title">{title}</p>
      <label htmlFor={id} className="file-drop__label">
        {label}
      </label>
      <input
        id={id}
        data-testid={`${testIdPrefix}-drop`}
        type="file"
        multiple
        accept={accept}
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          onFiles(files);
        }}
      />
      {reading.length > 0 && (
        <p className="file-drop__status" role="status" data-testid={`${testIdPrefix}-reading`}>
          Reading {reading.join(', ')}
          {progress && progress.total > 1 ? ` (${formatBytes(progress.done)} of ${formatBytes(progress.total)})` : ''}…
          {progress && <progress aria-label="Files read" max={Math.max(1, progress.total)} value={progress.done} />}
        </p>
      )}
    </div>
  );
}

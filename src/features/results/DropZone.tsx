import { useEffect, useState } from 'react';
import { FileDropZone } from '../../ui/FileDropZone';
import { useResults } from './store';

/** `on`, once it has stayed true for `ms` (a status line that would only flash is not shown). */
function useAfter(on: boolean, ms: number): boolean {
  const [late, setLate] = useState(false);
  useEffect(() => {
    if (!on) return;
    const timer = setTimeout(() => setLate(true), ms);
    return () => {
      clearTimeout(timer);
      setLate(false);
    };
  }, [on, ms]);
  return on && late;
}

/** Result files (CSV or JSON, any number), dropped or chosen. */
export function DropZone() {
  const importFiles = useResults((s) => s.importFiles);
  const reading = useResults((s) => s.reading);
  const progress = useResults((s) => s.progress);
  const bytesRead = progress !== null && progress.done >= progress.total;
  const computing = useAfter(
    useResults((s) => s.computing),
    400,
  );
  return (
    <>
      <FileDropZone
        onFiles={(files) => void importFiles(files)}
        title="Drop result files here"
        label={
          <>
            or choose files: the CSV or JSON a participant downloads, a JATOS export&apos;s rows, or the results
            server&apos;s export (any number; a session in several files counts once)
          </>
        }
        accept=".csv,.json,text/csv,application/json"
        testIdPrefix="results"
        reading={reading}
        progress={progress}
      />
      {computing && (reading.length === 0 || bytesRead) && (
        <p className="hint" role="status" data-testid="results-computing">
          {reading.length > 0 ? 'Every byte read; merging the files and computing' : 'Computing'} the figures (in the
          background: the page stays usable; a study of thousands of participants takes a while)…
        </p>
      )}
    </>
  );
}

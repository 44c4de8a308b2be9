import { FileDropZone } from '../../ui/FileDropZone';
import { useResults } from './store';

/** Result files (CSV or JSON, any number), dropped or chosen. */
export function DropZone() {
  const importFiles = useResults((s) => s.importFiles);
  const reading = useResults((s) => s.reading);
  const progress = useResults((s) => s.progress);
  return (
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
  );
}

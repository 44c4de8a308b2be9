import { FileDropZone } from '../../ui/FileDropZone';
import { useAudit } from './store';

/** CLUTRR CSV files or a dataset folder's zip, dropped or chosen. */
export function DropZone() {
  const importFiles = useAudit((s) => s.importFiles);
  const reading = useAudit((s) => s.reading);
  const progress = useAudit((s) => s.progress);
  return (
    <FileDropZone
      onFiles={(files) => void importFiles(files)}
      title="Drop CLUTRR CSV files or a dataset folder zip here"
      label="or choose files (.csv, .zip)"
      accept=".csv,.zip,text/csv,application/zip"
      testIdPrefix="audit"
      reading={reading}
      progress={progress}
    />
  );
}

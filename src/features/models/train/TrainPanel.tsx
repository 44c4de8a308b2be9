import { useId, type ReactNode } from 'react';
import { MODEL_KINDS, modelKind } from '../../../ml/modelKinds';
import { saveFile } from '../../../ui/saveFile';
import { PAPER_CLEAN_K23, PAPER_MODEL_NAME } from '../paper';
import { TrainChart } from './TrainChart';
import { MAX_EPOCHS, type TrainState } from './trainStore';
import { useTrain } from './useTrain';
import '../../../ui/fileDropZone.css';

const BACKEND_NAME = { webgl: 'WebGL (GPU)', wasm: 'WebAssembly', cpu: 'CPU (plain JavaScript)' } as const;
const MODEL_IDS = Object.keys(MODEL_KINDS);

/** A file input in a drop zone (the input carries the testid, so scripts can set its files). */
function FileInput({
  testId,
  label,
  accept,
  multiple = true,
  disabled = false,
  onFiles,
  children,
}: {
  testId: string;
  label: string;
  accept: string;
  multiple?: boolean;
  disabled?: boolean;
  onFiles: (files: File[]) => void;
  children?: ReactNode;
}) {
  const id = useId();
  return (
    <div
      className="file-drop train-panel__drop"
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }}
      onDrop={(e) => {
        e.preventDefault();
        if (!disabled) onFiles([...e.dataTransfer.files]);
      }}
    >
      <label htmlFor={id} className="file-drop__label">
        {label}
      </label>
      <input
        id={id}
        type="file"
        multiple={multiple}
        accept={accept}
        disabled={disabled}
        data-testid={testId}
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          onFiles(files);
        }}
      />
      {children}
    </div>
  );
}

const secondsPerEpoch = (s: TrainState) => {
  const full = s.history.filter((h) => h.batches === undefined);
  const list = full.length ? full : s.history;
  return list.length ? list.reduce((t, h) => t + h.seconds, 0) / list.length : null;
};

function TrainForm() {
  const id = useId();
  const s = useTrain();
  const training = s.status === 'training';
  return (
    <form
      className="model-report__form train-panel__form"
      aria-label="Training settings"
      onSubmit={(e) => {
        e.preventDefault();
        void s.start();
      }}
    >
      <FileInput
        testId="train-file"
        label="CLUTRR CSV files to train on (drop them here or choose)"
        accept=".csv,text/csv"
        disabled={training}
        onFiles={s.setFiles}
      >
        <p className="hint train-panel__files" data-testid="train-files">
          {s.files.length ? s.files.map((f) => f.name).join(', ') : 'No file yet.'}
        </p>
      </FileInput>
      <label htmlFor={`${id}-model`}>
        Model
        <select
          id={`${id}-model`}
          value={s.model}
          disabled={training}
          data-testid="train-model"
          onChange={(e) => s.setModel(e.currentTarget.value)}
        >
          {MODEL_IDS.map((m) => (
            <option key={m} value={m}>
              {modelKind(m)?.label ?? m}
            </option>
          ))}
        </select>
      </label>
      <label htmlFor={`${id}-epochs`}>
        Epochs
        <input
          id={`${id}-epochs`}
          type="number"
          min={1}
          max={MAX_EPOCHS}
          step={1}
          value={Number.isFinite(s.epochs) ? s.epochs : ''}
          disabled={training}
          data-testid="train-epochs"
          onChange={(e) => s.setEpochs(e.currentTarget.valueAsNumber)}
        />
      </label>
      <button type="submit" className="model-report__primary" disabled={training} data-testid="train-start">
        Train
      </button>
      <button type="button" disabled={!training} onClick={s.cancel} data-testid="train-cancel">
        Cancel
      </button>
    </form>
  );
}

function TrainStatus() {
  const s = useTrain();
  const perEpoch = secondsPerEpoch(s);
  if (s.status === 'idle') return null;
  return (
    <div className="train-panel__status" data-testid="train-status" data-status={s.status}>
      <p
        role={s.status === 'error' ? 'alert' : 'status'}
        className={s.status === 'error' ? 'model-report__error' : 'hint'}
        data-testid={s.status === 'error' ? 'train-error' : undefined}
      >
        {s.message}
      </p>
      {s.status === 'training' && s.steps.total > 0 && (
        <progress value={s.steps.done} max={s.steps.total} aria-label="Training steps run">
          {s.steps.done} of {s.steps.total}
        </progress>
      )}
      {s.backend && (
        <p className="train-panel__facts">
          <span data-testid="train-backend" data-backend={s.backend}>
            Backend: {BACKEND_NAME[s.backend]}
          </span>
          {s.webglNote && s.backend !== 'webgl' && <span className="hint"> (no WebGL: {s.webglNote})</span>}
          {perEpoch !== null && (
            <span data-testid="train-seconds" data-value={perEpoch.toFixed(2)}>
              {' '}
              · {perEpoch.toFixed(1)} s per epoch
            </span>
          )}
          {s.rows && (
            <span>
              {' '}
              · {s.rows.train} rows trained on, {s.rows.validation} held out
            </span>
          )}
        </p>
      )}
    </div>
  );
}

function EpochTable() {
  const history = useTrain((s) => s.history);
  if (history.length === 0) return null;
  return (
    <div className="train-panel__scroll">
      <table className="train-panel__epochs" aria-label="Figures by epoch">
        <thead>
          <tr>
            <th scope="col">Epoch</th>
            <th scope="col">Loss</th>
            <th scope="col">
              <abbr title="training accuracy">Train</abbr>
            </th>
            <th scope="col">
              <abbr title="validation accuracy">Valid.</abbr>
            </th>
            <th scope="col">
              <abbr title="seconds">s</abbr>
            </th>
          </tr>
        </thead>
        <tbody>
          {history.map((h) => (
            <tr
              key={h.epoch}
              data-testid="train-epoch"
              data-epoch={h.epoch}
              data-loss={h.loss}
              data-val={h.testAccuracy23 ?? ''}
            >
              <th scope="row">
                {h.epoch}
                {h.batches !== undefined ? ` (${h.batches} batches)` : ''}
              </th>
              <td>{h.loss.toFixed(4)}</td>
              <td>{h.accuracy.toFixed(3)}</td>
              <td>{h.testAccuracy23 === null ? '–' : h.testAccuracy23.toFixed(3)}</td>
              <td>{h.seconds.toFixed(1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Done() {
  const s = useTrain();
  const paper = s.trainedModel ? modelKind(s.trainedModel)?.paperModel : null;
  const figure = paper ? PAPER_CLEAN_K23[paper] : null;
  if (s.status !== 'done' && s.status !== 'stopped') return null;
  return (
    <div className="train-panel__done" data-testid="train-done" data-end={s.result?.end ?? ''}>
      <h3>Test it, keep it</h3>
      <FileInput
        testId="train-test-file"
        label="CLUTRR CSV test files (accuracy by k)"
        accept=".csv,text/csv"
        disabled={s.test.status === 'running'}
        onFiles={(f) => void s.testOn(f)}
      />
      {s.test.message && (
        <p
          role={s.test.status === 'error' ? 'alert' : 'status'}
          className={s.test.status === 'error' ? 'model-report__error' : 'hint'}
        >
          {s.test.message}
        </p>
      )}
      {s.test.byK.length > 0 && (
        <table className="train-panel__accuracy" aria-label="Test accuracy by k">
          <thead>
            <tr>
              <th scope="col">k</th>
              <th scope="col">Rows</th>
              <th scope="col">Accuracy</th>
              <th scope="col">Paper{paper ? ` (${PAPER_MODEL_NAME[paper]})` : ''}</th>
            </tr>
          </thead>
          <tbody>
            {s.test.byK.map((t) => (
              <tr key={t.k}>
                <th scope="row">{t.k}</th>
                <td>{t.rows}</td>
                <td data-testid={`train-accuracy-k${t.k}`} data-correct={t.correct} data-rows={t.rows}>
                  {(t.correct / t.rows).toFixed(3)}
                </td>
                <td data-testid={`train-paper-k${t.k}`}>
                  {figure && (t.k === 2 || t.k === 3) ? `${figure.mean.toFixed(2)} ± ${figure.se.toFixed(2)}` : '–'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {s.test.byK.length > 0 && (
        <p className="hint">
          {figure
            ? 'The paper states one figure for k = 2 and 3 tested together (Table 2, trained on clean k = 2, 3 stories; mean ± standard error over 10 runs); it gives no number for longer stories.'
            : 'This model is not in the paper: no figure to set beside it.'}
        </p>
      )}
      <p>
        <button
          type="button"
          className="train-panel__button"
          data-testid="train-download"
          onClick={() =>
            void s.folderZip().then(({ name, bytes }) => saveFile([bytes as BlobPart], name, 'application/zip'))
          }
        >
          Download the model folder (zip)
        </button>{' '}
        <span className="hint">
          model.json, weights.bin and metadata.json (what it was trained on: file names, rows, digests).
        </span>
      </p>
    </div>
  );
}

function LoadFolder() {
  const loaded = useTrain((s) => s.loaded);
  const message = useTrain((s) => s.loadMessage);
  const loadFolder = useTrain((s) => s.loadFolder);
  return (
    <div className="train-panel__load">
      <h3>Load a model folder</h3>
      <FileInput
        testId="train-load-folder"
        label="A model folder: its zip, or model.json, weights.bin and metadata.json"
        accept=".zip,.json,.bin,application/zip"
        onFiles={(f) => void loadFolder(f)}
      />
      {message && (
        <p
          role={message.error ? 'alert' : 'status'}
          className={message.error ? 'model-report__error' : 'hint'}
          data-testid={message.error ? 'train-load-error' : 'train-load-status'}
        >
          {message.text}
        </p>
      )}
      {loaded.length > 0 && (
        <ul className="train-panel__loaded">
          {loaded.map(({ entry, check }) => (
            <li
              key={entry.id}
              data-testid="train-loaded"
              data-id={entry.id}
              data-answers={check?.answers.map((a) => a.predicted).join(',') ?? ''}
              data-probs={check?.answers.map((a) => a.p.toFixed(6)).join(',') ?? ''}
            >
              <strong>{entry.label}</strong> ({entry.id})
              {check && (
                <span>
                  {' '}
                  — the first {check.answers.length} rows of {check.file}:{' '}
                  {check.answers.filter((a) => a.predicted === a.gold).length} answered right
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The Train panel of `#/models`: train any of our models on CLUTRR CSV files in a worker of this
 * page (WebGL on a GPU, else WebAssembly), watch its loss and validation curves, test it by k
 * beside the paper's figure, download its folder, and load a folder back for this session.
 */
export function TrainPanel() {
  const s = useTrain();
  return (
    <section className="model-report__section train-panel" aria-labelledby="train-panel-h" data-testid="train-panel">
      <h2 id="train-panel-h">Train a model in this browser</h2>
      <p className="hint">
        Drop CLUTRR CSV files (ours or the released ones); a tenth of their rows, at most 1,000, is held out for the
        validation curve. Training runs in a worker of this page on WebGL when there is a GPU, else on WebAssembly;
        nothing is sent anywhere.
      </p>
      <TrainForm />
      <TrainStatus />
      {(s.status !== 'idle' || s.history.length > 0) && s.status !== 'error' && (
        <div className="train-panel__curves">
          <TrainChart history={s.history} epochs={s.epochsOf} />
          <EpochTable />
        </div>
      )}
      <Done />
      <LoadFolder />
    </section>
  );
}

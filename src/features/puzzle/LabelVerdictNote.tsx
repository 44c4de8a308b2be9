import type { LabelVerdict } from './verdict';
import './verdict.css';

/** An imported row's verdict: what the audit found about its label (nothing for a generated puzzle). */
export function LabelVerdictNote({ verdict, testId = 'label-verdict' }: { verdict: LabelVerdict; testId?: string }) {
  if (verdict.kind === 'generated') return null;
  return (
    <p
      className={`label-verdict label-verdict--${verdict.trusted ? 'ok' : 'warn'}`}
      data-testid={testId}
      data-verdict={verdict.kind}
    >
      <span className="label-verdict__badge">{verdict.badge}</span> {verdict.text}
    </p>
  );
}

import { useMemo } from 'react';
import { encodeStudyLink } from '../../study/definition/link';
import { Problems } from './fields';
import { definitionFromForm, problemsByInput } from './form';
import { LinkPanel } from './LinkPanel';
import { PowerPlanner } from './PowerPlanner';
import { SettingsForm } from './SettingsForm';
import { useStudyDesigner } from './store';
import { CliLine, Summary } from './Summary';
import './studyDesigner.css';
import { ViewHeader } from '../../ui/ViewHeader';

/** The study designer (`#/study`): every setting of a study, its problems, its link and files. */
export function StudyDesignerView() {
  const form = useStudyDesigner((s) => s.form);
  const { problems, def } = useMemo(() => {
    const { all, byInput } = problemsByInput(form);
    return { problems: { all, byInput }, def: definitionFromForm(form) };
  }, [form]);
  const token = useMemo(() => (problems.all.length === 0 ? encodeStudyLink(def) : null), [problems, def]);

  return (
    <section className="sd" aria-labelledby="sd-title">
      <ViewHeader title="Study designer" className="sd-header" headingId="sd-title">
        A human study of CLUTRR puzzles like the paper&apos;s (Table 3): choose the items, conditions, texts and where
        results go; the participant link carries the whole study, and the same settings always give the same link.
      </ViewHeader>
      <div className="two-col">
        <form className="sd-form" aria-label="Study settings" onSubmit={(e) => e.preventDefault()} noValidate>
          <Problems.Provider value={problems.byInput}>
            <SettingsForm />
          </Problems.Provider>
        </form>
        <aside className="sd-side" aria-labelledby="sd-outputs">
          <LinkPanel def={def} token={token} problems={problems.all} form={form} />
          {token && <Summary def={def} />}
          {token && <CliLine def={def} />}
          {token && (def.kind === 'solve' || def.kind === 'adaptive') && (
            <PowerPlanner key={`${def.k.join(',')}/${def.tasks.join(',')}/${def.itemsPerK}`} def={def} />
          )}
        </aside>
      </div>
    </section>
  );
}

import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { DEFAULT_CONDITION } from '../../study/definition/definition';
import { type ConditionForm, conditionForm, DEFAULT_FORM, type StudyForm, withKind } from './form';

/**
 * The designer's state: the form, kept in localStorage so a study being designed survives a
 * reload (where results go included: a destination once chosen stays chosen). Feature-local (features do not share state); versioned, so a later form shape can
 * migrate or drop what an older page saved.
 */
export interface StudyDesignerState {
  readonly form: StudyForm;
  /** The message of the last definition file that could not be loaded; null when none. */
  readonly loadError: string | null;
  /** Why the last stories file could not be embedded; null when none. */
  readonly storiesError: string | null;
  /** The sample size chosen with the power planner, and how; null until one is chosen. */
  readonly plannedN: PlannedN | null;
}

/** A planned number of participants and the sentence that says how it was chosen. */
export interface PlannedN {
  readonly participants: number;
  readonly how: string;
}

type ScalarField = Exclude<keyof StudyForm, 'conditions' | 'httpSinks'>;

export interface StudyDesignerActions {
  setField<F extends ScalarField>(field: F, value: StudyForm[F]): void;
  setCondition<F extends Exclude<keyof ConditionForm, 'key'>>(index: number, field: F, value: ConditionForm[F]): void;
  addCondition(): void;
  removeCondition(index: number): void;
  setHttpSink(index: number, url: string): void;
  addHttpSink(): void;
  removeHttpSink(index: number): void;
  loadForm(form: StudyForm): void;
  setLoadError(message: string | null): void;
  setStoriesError(message: string | null): void;
  setPlannedN(plan: PlannedN | null): void;
  reset(): void;
}

export const STORAGE_KEY = 'clutrr-lab:study-designer';
const STORAGE_VERSION = 1;

const nextKey = (conditions: readonly ConditionForm[]) => Math.max(0, ...conditions.map((c) => c.key)) + 1;

export const useStudyDesigner = create<StudyDesignerState & StudyDesignerActions>()(
  persist(
    (set) => ({
      form: DEFAULT_FORM,
      loadError: null,
      storiesError: null,
      plannedN: null,
      // Another kind of study: its own default texts where the old kind's were left unchanged.
      setField: (field, value) =>
        set((s) => ({
          form: field === 'kind' ? withKind(s.form, value as string) : { ...s.form, [field]: value },
        })),
      setCondition: (index, field, value) =>
        set((s) => ({
          form: {
            ...s.form,
            conditions: s.form.conditions.map((c, i) => (i === index ? { ...c, [field]: value } : c)),
          },
        })),
      addCondition: () =>
        set((s) => {
          const key = nextKey(s.form.conditions);
          const condition = conditionForm(
            { ...DEFAULT_CONDITION, id: `condition-${s.form.conditions.length + 1}` },
            key,
          );
          return { form: { ...s.form, conditions: [...s.form.conditions, condition] } };
        }),
      removeCondition: (index) =>
        set((s) => ({ form: { ...s.form, conditions: s.form.conditions.filter((_, i) => i !== index) } })),
      setHttpSink: (index, url) =>
        set((s) => ({ form: { ...s.form, httpSinks: s.form.httpSinks.map((u, i) => (i === index ? url : u)) } })),
      addHttpSink: () => set((s) => ({ form: { ...s.form, httpSinks: [...s.form.httpSinks, ''] } })),
      removeHttpSink: (index) =>
        set((s) => ({ form: { ...s.form, httpSinks: s.form.httpSinks.filter((_, i) => i !== index) } })),
      loadForm: (form) => set({ form, loadError: null }),
      setLoadError: (loadError) => set({ loadError }),
      setStoriesError: (storiesError) => set({ storiesError }),
      setPlannedN: (plannedN) => set({ plannedN }),
      reset: () => set({ form: DEFAULT_FORM, loadError: null, storiesError: null, plannedN: null }),
    }),
    {
      name: STORAGE_KEY,
      version: STORAGE_VERSION,
      storage: createJSONStorage(() => localStorage),
      partialize: (s) => ({ form: s.form, plannedN: s.plannedN }),
      // A saved form missing fields (an older shape) is completed with the defaults. Before the
      // HTTP box existed, listed addresses were the HTTP sinks: they stay chosen.
      merge: (persisted, current) => {
        const stored = persisted as { form?: Partial<StudyForm>; plannedN?: PlannedN | null } | undefined;
        const saved = stored?.form;
        if (!saved || typeof saved !== 'object') return current;
        const http = saved.http ?? (Array.isArray(saved.httpSinks) && saved.httpSinks.length > 0);
        const plan = stored.plannedN;
        const plannedN =
          plan && typeof plan === 'object' && Number.isInteger(plan.participants) && typeof plan.how === 'string'
            ? plan
            : null;
        return { ...current, form: { ...DEFAULT_FORM, ...saved, http }, plannedN };
      },
    },
  ),
);

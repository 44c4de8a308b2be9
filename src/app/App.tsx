import { lazy, Suspense, useEffect, useRef } from 'react';
import { PuzzleView } from '../features/puzzle/PuzzleView';
import { hrefForRoute, type Route } from '../state/routes';
import { selectRoute, selectSettings } from '../state/selectors';
import { searchFromSettings } from '../state/settings';
import { useStore } from '../state/useStore';
import { ErrorBoundary } from './ErrorBoundary';

// Views other than the start page load on demand, so the first paint carries only the explorer.
// Each comes through its feature's index.ts (its one entry), so the chunk bears the feature's name.
const ClassroomView = lazy(() => import('../features/classroom').then((m) => ({ default: m.ClassroomView })));
const DatasetBuilderView = lazy(() => import('../features/dataset').then((m) => ({ default: m.DatasetBuilderView })));
const AuditView = lazy(() => import('../features/audit').then((m) => ({ default: m.AuditView })));
const ResultsView = lazy(() => import('../features/results').then((m) => ({ default: m.ResultsView })));
const ModelsView = lazy(() => import('../features/models').then((m) => ({ default: m.ModelsView })));
const StudyDesignerView = lazy(() =>
  import('../features/studyDesigner').then((m) => ({ default: m.StudyDesignerView })),
);

const NAV: readonly [Route, string][] = [
  ['puzzle', 'Puzzle'],
  ['classroom', 'Classroom'],
  ['dataset', 'Dataset builder'],
  ['audit', 'Import & audit'],
  ['study', 'Study designer'],
  ['results', 'Results'],
  ['models', 'Models'],
];

function Nav({ route }: { route: Route }) {
  const settings = useStore(selectSettings);
  const search = searchFromSettings(settings);
  return (
    <nav aria-label="Views" className="nav">
      <ul>
        {NAV.map(([r, label]) => (
          <li key={r}>
            <a href={hrefForRoute(r, search)} aria-current={r === route ? 'page' : undefined} data-testid={`nav-${r}`}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function View({ route }: { route: Route }) {
  switch (route) {
    case 'classroom':
      return <ClassroomView />;
    case 'dataset':
      return <DatasetBuilderView />;
    case 'audit':
      return <AuditView />;
    case 'study':
      return <StudyDesignerView />;
    case 'results':
      return <ResultsView />;
    case 'models':
      return <ModelsView />;
    default:
      return <PuzzleView />;
  }
}

/** The shell: header and navigation, then the routed view (the classroom takes the whole screen). */
export function App() {
  const route = useStore(selectRoute);
  const first = useRef(true);

  // After a route change, move focus to the new view's heading so keyboard and screen-reader
  // users land in it (not on the first load: the page starts at the top).
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const t = setTimeout(() => document.querySelector<HTMLElement>('[data-view-heading]')?.focus(), 0);
    return () => clearTimeout(t);
  }, [route]);

  useEffect(() => {
    const names: Record<Route, string> = {
      puzzle: 'Puzzle',
      classroom: 'Classroom',
      dataset: 'Dataset builder',
      audit: 'Import & audit',
      study: 'Study designer',
      results: 'Results',
      models: 'Models',
    };
    document.title = `${names[route]} · CLUTRR Lab`;
  }, [route]);

  const fallback = (
    <p className="placeholder" role="status">
      Loading…
    </p>
  );

  // The view of the route, lazily loaded and fenced off so that a failing view never blanks the page.
  const routed = (
    <ErrorBoundary resetKey={route}>
      <Suspense fallback={fallback}>
        <View route={route} />
      </Suspense>
    </ErrorBoundary>
  );

  if (route === 'classroom') {
    return <main className="app app--classroom">{routed}</main>;
  }
  return (
    <div className="app">
      {/* A button, not href="#main": the hash holds the route. */}
      <button type="button" className="skip-link" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header className="app__header">
        <p className="app__brand">
          CLUTRR <span>Lab</span>
        </p>
        <Nav route={route} />
      </header>
      <main id="main" className="app__main" tabIndex={-1}>
        {routed}
      </main>
    </div>
  );
}

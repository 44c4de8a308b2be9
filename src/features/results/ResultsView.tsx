/** Placeholder until the results dashboard lands (issue 10). */
export function ResultsView() {
  return (
    <section>
      <h1 tabIndex={-1} data-view-heading>
        Results
      </h1>
    </section>
  );
}

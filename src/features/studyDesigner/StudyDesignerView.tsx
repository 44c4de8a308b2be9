/** Placeholder until the study designer lands (issue 9). */
export function StudyDesignerView() {
  return (
    <section>
      <h1 tabIndex={-1} data-view-heading>
        Study designer
      </h1>
    </section>
  );
}

/** Placeholder until the participant run lands (issue 9). */
export function ParticipantApp() {
  return <p role="status">The participant run is being built.</p>;
}

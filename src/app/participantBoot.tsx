import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// The base and shell styles first: every feature's and component's sheet builds on them.
import './styles.css';
import { ParticipantApp } from '../features/participant';

// The participant's page: the run alone, without the explorer's header and navigation.
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ParticipantApp />
  </StrictMode>,
);

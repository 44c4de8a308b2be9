import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ParticipantApp } from '../features/participant';
import './styles.css';

// The participant's page: the run alone, without the explorer's header and navigation.
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ParticipantApp />
  </StrictMode>,
);

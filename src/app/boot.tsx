import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// The base and shell styles first: every feature's and component's sheet builds on them.
import './styles.css';
import { App } from './App';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

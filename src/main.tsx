import { installTestHook } from './app/testHook';
import { appStore } from './state/store';
import { startUrlSync } from './state/urlSync';
import { isParticipantUrl } from './study/delivery/route';

const failed = (e: unknown) => {
  const root = document.getElementById('root');
  if (root)
    root.textContent = `CLUTRR Lab could not start: ${e instanceof Error ? e.message : String(e)}. Reload the page.`;
};

if (isParticipantUrl(window.location.search, window.location.hash, window.location.pathname)) {
  // A participant's run (`?study=<token>`, or any page inside JATOS): none of the explorer's URL syncing, which would
  // rewrite the query, and none of its puzzles; the run loads on its own.
  import('./app/participantBoot').catch(failed);
} else {
  // The entry is small on purpose: it reads the URL and asks the generator worker for the first
  // puzzle, then loads React and the app. The worker starts while the app's code downloads and
  // parses, so the first story is on screen sooner.
  startUrlSync(appStore);
  installTestHook(appStore);
  import('./app/boot').catch(failed);
}

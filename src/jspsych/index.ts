/**
 * The entry of `npm run build:jspsych`: the plugin class as the default export (jsPsych's
 * convention), and the timeline helper. The IIFE build exposes the class as `window.jsPsychClutrr`
 * with the helper as its static `timeline` (see vite.jspsych.config.ts).
 */
import ClutrrPlugin from './plugin';
import { clutrrTimeline, studyFromLink } from './timeline';

export { clutrrTimeline, studyFromLink };
export default ClutrrPlugin;

/**
 * The entry of the `<script>` build (`dist-jspsych/plugin-clutrr.iife.js`): `window.jsPsychClutrr`
 * is the plugin class, as jsPsych's own plugin scripts do it, with the timeline helper as its
 * static `timeline` (and `studyFromLink`).
 */
import ClutrrPlugin from './plugin';
import { clutrrTimeline, studyFromLink } from './timeline';

export default Object.assign(ClutrrPlugin, { timeline: clutrrTimeline, studyFromLink });

/**
 * The trial's styles, added once to the page's head (the plugin ships as one script). Scoped to
 * `.clutrr-trial`; readable at 390 px without sideways scrolling; jsPsych's own stylesheet is
 * left alone.
 */
const STYLE_ID = 'clutrr-plugin-style';

const CSS = `
.clutrr-trial { box-sizing: border-box; max-width: 760px; width: 100%; margin: 0 auto; padding: 12px; text-align: left; font-size: 17px; line-height: 1.5; }
.clutrr-trial *, .clutrr-trial *::before, .clutrr-trial *::after { box-sizing: border-box; }
.clutrr-story { margin: 0 0 12px; overflow-wrap: anywhere; }
.clutrr-question { font-weight: 600; margin: 12px 0; }
.clutrr-words { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 6px; }
@media (min-width: 600px) { .clutrr-words { grid-template-columns: repeat(4, minmax(0, 1fr)); } }
.clutrr-word, .clutrr-rate, .clutrr-submit { font: inherit; min-height: 44px; padding: 6px 8px; border: 1px solid #8a8f98; border-radius: 8px; background: #fff; color: #1b1f24; cursor: pointer; }
.clutrr-word[aria-pressed="true"], .clutrr-rate[aria-pressed="true"] { background: #1f5fbf; border-color: #1f5fbf; color: #fff; }
.clutrr-word:focus-visible, .clutrr-rate:focus-visible, .clutrr-submit:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.clutrr-rating { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 14px 0; }
.clutrr-rating-label { flex-basis: 100%; }
.clutrr-rate { min-width: 44px; }
.clutrr-bar { position: sticky; bottom: 0; display: flex; align-items: center; gap: 10px; flex-wrap: wrap; padding: 10px 0; background: #fff; border-top: 1px solid #d0d4da; }
.clutrr-hint { flex: 1; color: #4a5059; font-size: 15px; }
.clutrr-countdown { font-variant-numeric: tabular-nums; font-weight: 600; }
.clutrr-submit { background: #1f5fbf; color: #fff; border-color: #1f5fbf; padding: 6px 20px; }
.clutrr-submit:disabled { background: #c9ced6; border-color: #c9ced6; color: #4a5059; cursor: not-allowed; }
.clutrr-drawing { display: block; width: 100%; max-width: 520px; height: auto; margin: 8px auto; color: #4a5059; }
.clutrr-person { fill: #f4f6f8; stroke: #8a8f98; }
.clutrr-person-query { stroke: #1f5fbf; stroke-width: 2.5; }
.clutrr-person-name, .clutrr-edge-label { font-size: 12px; fill: #1b1f24; }
.clutrr-edge-label { paint-order: stroke; stroke: #fff; stroke-width: 3px; }
`;

export function ensureStyles(): void {
  if (document.getElementById(STYLE_ID)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  document.head.append(style);
}

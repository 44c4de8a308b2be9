/**
 * Rewrites the index column (the first field) of CSV records as they stream past: the index of
 * each record becomes `start`, `start + 1`, …. Feed it the text in pieces of any size (a quoted
 * field or a record may span pieces); it returns what can be written so far, and the rest with
 * `final`. Quoted fields may hold commas, quotes and line ends. Used to join a dataset's files
 * into one CSV whose index counts across them, without parsing or holding the rows.
 */
export function reindexCsv(start: number): (text: string, final?: boolean) => string {
  let index = start;
  // Where we are: at the start of a record, inside the index field, or in the rest of a record.
  let state: 'start' | 'index' | 'rest' = 'start';
  let quoted = false;
  let pendingCr = false;
  return (text, final = false) => {
    let out = '';
    let i = 0;
    const n = text.length;
    while (i < n) {
      if (state === 'start') {
        const ch = text[i]!;
        if (pendingCr) {
          pendingCr = false;
          if (ch === '\n') {
            out += ch;
            i++;
            continue;
          }
        }
        if (ch === '\n' || ch === '\r') {
          // A blank line stays blank.
          out += ch;
          i++;
          continue;
        }
        out += String(index++);
        state = 'index';
      }
      if (state === 'index') {
        const comma = text.indexOf(',', i);
        const nl = firstLineEnd(text, i);
        if (comma >= 0 && (nl < 0 || comma < nl)) {
          i = comma;
          state = 'rest';
        } else if (nl >= 0) {
          // A record of one field: the index alone.
          i = nl;
          state = 'rest';
        } else break;
      }
      // state === 'rest': copy up to and including the record's line end (outside quotes).
      let j = i;
      while (j < n) {
        if (quoted) {
          const q = text.indexOf('"', j);
          if (q < 0) {
            j = n;
            break;
          }
          quoted = false;
          j = q + 1;
          continue;
        }
        const q = text.indexOf('"', j);
        const nl = firstLineEnd(text, j);
        if (q >= 0 && (nl < 0 || q < nl)) {
          quoted = true;
          j = q + 1;
          continue;
        }
        if (nl < 0) {
          j = n;
          break;
        }
        out += text.slice(i, nl + 1);
        i = nl + 1;
        j = i;
        state = 'start';
        if (text[nl] === '\r') pendingCr = true;
        break;
      }
      if (state === 'rest' && j >= n) {
        out += text.slice(i, n);
        i = n;
      }
    }
    if (final) state = 'start';
    return out;
  };
}

function firstLineEnd(text: string, from: number): number {
  const a = text.indexOf('\n', from);
  const b = text.indexOf('\r', from);
  if (a < 0) return b;
  if (b < 0) return a;
  return Math.min(a, b);
}

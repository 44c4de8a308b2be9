import * as tf from '@tensorflow/tfjs';
import type { BestKeeper } from './epochs';

/**
 * A BestKeeper over a model's variables: `save` holds a copy of each (the copy keeps the values
 * while training goes on assigning new ones), `restore` assigns the copies back.
 */
export function variablesKeeper(variables: ReadonlyMap<string, tf.Variable>): BestKeeper {
  let saved: tf.Tensor[] | null = null;
  const free = () => {
    for (const t of saved ?? []) t.dispose();
    saved = null;
  };
  return {
    save() {
      free();
      saved = [...variables.values()].map((v) => tf.clone(v));
    },
    restore() {
      if (!saved) return;
      const copies = saved;
      [...variables.values()].forEach((v, i) => v.assign(copies[i]!));
    },
    dispose: free,
  };
}

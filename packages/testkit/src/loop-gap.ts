// How long the event loop was held while something ran: the widest gap between the turns of a short timer.
// Tests that claim a piece of work runs off the loop (a worker thread, the database's thread) compare it with
// how long that work takes; on the loop, the gap would be about the whole of it.
import { performance } from 'node:perf_hooks';

export interface LoopGap<T> {
  result: T;
  /** The widest gap between two turns of the timer, the last turn to the end included, in ms. */
  widestMs: number;
  /** From the start of `during` until it settled, in ms. */
  elapsedMs: number;
}

/** Runs `during` with a timer every `tickMs` beside it; rejects as `during` does, with the timer stopped. */
export async function widestLoopGap<T>(during: () => Promise<T>, tickMs = 1): Promise<LoopGap<T>> {
  const started = performance.now();
  let last = started;
  let widestMs = 0;
  const turn = () => {
    const now = performance.now();
    widestMs = Math.max(widestMs, now - last);
    last = now;
  };
  const timer = setInterval(turn, tickMs);
  try {
    const result = await during();
    turn();
    return { result, widestMs, elapsedMs: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

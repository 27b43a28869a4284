// Preloaded into the benchmarked server process (`--import`): samples the event loop's delay and answers
// the bench over IPC, so the figures come from inside the server, not from the load generator.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();

process.on('message', (msg: unknown) => {
  if (msg === 'loop-reset') {
    histogram.reset();
    process.send?.({ type: 'loop-reset' });
  } else if (msg === 'loop-stats') {
    process.send?.({
      type: 'loop-stats',
      p50: histogram.percentile(50) / 1e6,
      p99: histogram.percentile(99) / 1e6,
      max: histogram.max / 1e6,
      mean: histogram.mean / 1e6,
    });
  }
});
// The IPC channel must not keep the server alive after SIGTERM's graceful shutdown.
process.channel?.unref();

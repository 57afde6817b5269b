// `kvscope serve` runs its service (ingest, recording, model, analysis) in a worker thread, so a
// source publishing flat out never delays an HTTP answer, a static file or a WebSocket frame on
// the main thread. The worker's heap has no ceiling (see below): memory is bounded by design.

import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { nodePort } from '../host/host-port';
import { ServiceLink } from '../host/service-link';
import type { ServiceOptions } from '../service/service';

/**
 * The service thread's young generation, per semi-space (MB). V8's own for a 64-bit process is 16:
 * 32 MB of new space that the thread's constant allocation (a batch's records, its hash strings)
 * keeps touched, a tenth of serve's memory on a fast stream. With 4 the thread's new space is 8 MB;
 * what survives a scavenge is the same few structures, so scavenges come four times as often but
 * cost about the same each (measured: 24 MB less RSS, the same batches taken at 18,000 a second).
 */
export const SERVICE_SEMI_SPACE_MB = 4;

/** How long close() waits for the thread to end after its service closed. */
const CLOSE_WAIT_MS = 10_000;

/** The service running in a worker thread, and the link to it. */
export interface ServiceWorker {
  link: ServiceLink;
  thread: Worker;
  /** Closes the service, then waits for the thread to end. */
  close(): Promise<void>;
}

/** Starts `entry` (dist/service-host.cjs) in a worker thread and the service in it. */
export async function startServiceWorker(
  entry: string,
  options: ServiceOptions,
): Promise<ServiceWorker> {
  // No resourceLimits: a worker stopped at a heap ceiling keeps its ZeroMQ sockets open, which
  // aborts the whole process (zeromq.js #411): a big but good session (millions of resident
  // blocks) would kill serve instead of opening. The heap grows as V8 likes; only its young
  // generation is smaller. V8 reads the flag when an isolate is made: this thread's heap is made
  // already, the worker's is made below with it (flags are the process's, set before each start).
  setFlagsFromString(`--max-semi-space-size=${SERVICE_SEMI_SPACE_MB}`);
  const worker = new Worker(entry);
  const link = new ServiceLink(nodePort(worker), (why) => crashText(why, options.dataDir));
  let closing = false;
  const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', (err) => link.hostLost(err.message));
  worker.once('exit', (code) => {
    if (!closing) link.hostLost(`it exited with code ${code}`);
  });
  try {
    await link.start(options);
  } catch (err) {
    // The host ends by itself after a failed start (terminate() could abort: see close()).
    await ended;
    throw err;
  }
  return {
    link,
    thread: worker,
    close: async () => {
      closing = true;
      if (!link.lost) await link.close().catch(() => undefined);
      // The host ends itself once its sockets are closed. Never terminate() a thread with sockets
      // open: zeromq.js aborts the whole process then (zeromq.js #411).
      const patience = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref());
      await Promise.race([ended, patience]);
    },
  };
}

/** What a crash of the service thread says to the user: what happened, what is kept, what to do. */
function crashText(why: string, dataDir: string): string {
  return `the KV Scope service thread stopped (${why}): what it received is in the recordings of ${dataDir}; start kvscope serve again`;
}

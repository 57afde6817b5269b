// The service host's entry (bundled as dist/service-host.cjs): a worker thread of `kvscope serve`,
// or the desktop app's Electron utility process. Either way it runs ingest, recording, model and
// analysis away from the thread that serves the screen, and speaks over the port it was given.

import { parentPort } from 'node:worker_threads';
import { nodePort, parentPortOf, type HostPort, type ParentPortLike } from './host-port';
import { runServiceHost } from './service-host';

// Electron gives a utility process `process.parentPort`; a worker thread has worker_threads'.
const electronPort = (process as { parentPort?: ParentPortLike }).parentPort;
const port: HostPort | null = parentPort
  ? nodePort(parentPort)
  : electronPort
    ? parentPortOf(electronPort)
    : null;
if (!port) {
  process.stderr.write('service-host.cjs runs as a worker or a utility process, not on its own\n');
  process.exit(2);
}
// Closed on request (or failed and closed). A worker thread ends by itself once nothing is left
// to run: process.exit() in a thread can abort the whole process in zeromq.js's cleanup (#411).
const fail = runServiceHost(port, (code) => {
  process.exitCode = code;
  if (parentPort) parentPort.close();
  else process.exit(code);
});
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

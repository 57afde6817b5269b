// The desktop app runs its service (ingest, recording, model, analysis) in an Electron utility
// process, so a flat-out source never stalls the window's main process: menus, dialogs and IPC stay
// responsive. Main keeps the dialogs and hands the host the paths they chose.

import { utilityProcess } from 'electron';
import { nodePort } from '../host/host-port';
import { ServiceLink } from '../host/service-link';
import type { ServiceOptions } from '../service/service';

/** The part of Electron's UtilityProcess used here (tests give a stand-in). */
export interface UtilityChild {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  once(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

/** The service in its utility process, and the link to it. */
export interface ServiceProcess {
  link: ServiceLink;
  /** Closes the service, then ends the process. */
  close(): Promise<void>;
}

/** Forks `entry` (dist/service-host.cjs) as a utility process and starts the service in it. */
export async function startServiceProcess(
  entry: string,
  options: ServiceOptions,
  fork: (entry: string) => UtilityChild = (e) =>
    utilityProcess.fork(e, [], { serviceName: 'KV Scope service', stdio: 'inherit' }),
): Promise<ServiceProcess> {
  const child = fork(entry);
  const link = new ServiceLink(nodePort(child), (why) => crashText(why, options.dataDir));
  let closing = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      if (!closing) link.hostLost(`exit code ${code}`);
      resolve();
    }),
  );
  try {
    await link.start(options);
  } catch (err) {
    child.kill();
    throw err;
  }
  return {
    link,
    close: async () => {
      closing = true;
      if (!link.lost) await link.close().catch(() => undefined);
      child.kill();
      await exited;
    },
  };
}

/** What a crash of the service process says: what happened, what is kept, what to do. */
function crashText(why: string, dataDir: string): string {
  return `KV Scope's service process stopped (${why}). What it received is kept in the recordings of ${dataDir} (Recent recordings, on the Connections screen). Start KV Scope again.`;
}

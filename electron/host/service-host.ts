// The service's side of the host port: it starts the service when asked, answers each renderer's
// requests through the contract's handlers, pushes each renderer its frames, and runs the
// transport's calls. Whatever thread or process it runs in, it imports nothing of Electron.

import type { InvokeChannel, InvokeHandlers } from '../../shared/contract';
import { missingCase } from '../../shared/records';
import { createInvokeHandlers, type FileActions } from '../service/invoke-handlers';
import { KvScopeService } from '../service/service';
import type { HostPort } from './host-port';
import type { FromHost, HostCalls, ToHost } from './host-protocol';

/** The renderer's file channels are answered by the side that owns dialogs and HTTP routes. */
const NOT_HERE = (): Promise<never> =>
  Promise.reject(new Error('file actions are answered where the dialogs and uploads are'));
const HOST_FILE_ACTIONS: FileActions = {
  openSession: NOT_HERE,
  saveSessionAs: NOT_HERE,
  importCapture: NOT_HERE,
  exportRatesCsv: NOT_HERE,
  exportChartPng: NOT_HERE,
  exportEvents: NOT_HERE,
  exportChains: NOT_HERE,
};

/** One renderer as the host knows it: its handlers (its frame acks) and whether it can take a frame. */
interface HostedClient {
  handlers: InvokeHandlers;
  state: { writable: boolean };
  close(): void;
}

/** How often the unsaved flag is looked at besides after each call. */
const UNSAVED_CHECK_MS = 500;

/** A failing host gets this long to close its sockets and the recording before it ends anyway. */
const FAULT_CLOSE_MS = 5000;

/**
 * Waits for the start message on `port`, starts the service, then serves it; for an entry file.
 * Returns what to call on an exception nothing caught: it says so over the port, closes the
 * service (its sockets and recording) and then ends the host through `onClosed`.
 */
export function runServiceHost(
  port: HostPort,
  onClosed: (code: number) => void,
): (err: unknown) => void {
  let starting = false;
  let service: KvScopeService | null = null;
  let failing = false;
  port.listen((message) => {
    const m = message as ToHost;
    if (starting || m.kind !== 'start') return;
    starting = true;
    KvScopeService.start(m.options).then(
      (started) => {
        service = started;
        serveOverPort(started, port, () => onClosed(0));
        port.post({ kind: 'started' } satisfies FromHost);
      },
      (err: unknown) => {
        port.post({ kind: 'start-failed', error: errorText(err) } satisfies FromHost);
        onClosed(1);
      },
    );
  });
  return (err) => {
    if (failing) return;
    failing = true;
    port.post({ kind: 'fault', error: errorText(err) } satisfies FromHost);
    // zeromq.js aborts the whole process when a thread ends with sockets open (zeromq.js #411):
    // close them first, and end only once they are closed.
    const closed = service ? service.close() : Promise.resolve();
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, FAULT_CLOSE_MS).unref());
    void Promise.race([closed.then(() => true), timeout.then(() => false)]).then(
      (clean) => clean && onClosed(1),
      () => undefined,
    );
  };
}

/** Serves a running service over `port` (the port's listener is taken over). */
export function serveOverPort(
  service: KvScopeService,
  port: HostPort,
  onClosed: () => void = () => undefined,
): void {
  const post = (message: FromHost) => port.post(message);
  const clients = new Map<number, HostedClient>();
  let unsaved = false;
  const checkUnsaved = (): void => {
    const now = service.hasUnsavedLiveData();
    if (now !== unsaved) post({ kind: 'unsaved', value: (unsaved = now) });
  };
  const unsavedTimer = setInterval(checkUnsaved, UNSAVED_CHECK_MS);
  unsavedTimer.unref();

  const calls: HostCalls = {
    openSession: (file, name) => service.openSession(file, name),
    importCapture: (file, name) => service.importCapture(file, name),
    saveSession: (target) => service.saveSession(target),
    saveSessionCopy: (target) => service.saveSessionCopy(target),
    ratesCsv: () => Promise.resolve(service.ratesCsv()),
    exportEvents: (target, filter, format) => service.exportEvents(target, filter, format),
    exportChains: (target, filter, format) => service.exportChains(target, filter, format),
    listProfiles: () => Promise.resolve(service.listProfiles()),
    metricsText: (format) => service.metrics.text(format),
    close: async () => {
      clearInterval(unsavedTimer);
      for (const client of clients.values()) client.close();
      clients.clear();
      await service.close();
    },
  };

  const reply = (id: number, run: () => unknown): void => {
    Promise.resolve()
      .then(run)
      .then(
        (result) => post({ kind: 'reply', id, ok: true, result: result ?? null }),
        (err: unknown) => post({ kind: 'reply', id, ok: false, error: errorText(err) }),
      )
      .finally(checkUnsaved);
  };

  port.listen((message) => {
    const m = message as ToHost;
    switch (m.kind) {
      case 'start':
        return;
      case 'attach': {
        const state = { writable: true };
        const frames = service.subscribe({
          send: (frame) =>
            post({ kind: 'push', client: m.client, channel: 'update', payload: frame }),
          writable: () => state.writable,
        });
        const handlers = createInvokeHandlers(service, HOST_FILE_ACTIONS, frames);
        clients.set(m.client, { handlers, state, close: () => frames.close() });
        return;
      }
      case 'detach':
        clients.get(m.client)?.close();
        clients.delete(m.client);
        return;
      case 'writable': {
        const client = clients.get(m.client);
        if (client) client.state.writable = m.writable;
        return;
      }
      case 'invoke':
        return reply(m.id, () => {
          const client = clients.get(m.client);
          if (!client) throw new Error('this window is no longer attached: reload it');
          const handler = client.handlers[m.channel as InvokeChannel] as
            ((...a: unknown[]) => unknown) | undefined;
          if (!handler) throw new Error(`unknown channel ${JSON.stringify(m.channel)}`);
          return handler(...m.args);
        });
      case 'call':
        return reply(m.id, async () => {
          const call = calls[m.call] as ((...a: unknown[]) => Promise<unknown>) | undefined;
          if (!call) throw new Error(`unknown host call ${JSON.stringify(m.call)}`);
          const result = await call(...m.args);
          if (m.call === 'close') setImmediate(onClosed);
          return result;
        });
      default:
        return missingCase(m);
    }
  });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

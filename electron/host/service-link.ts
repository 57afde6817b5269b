// The screen's side of the host port: it starts the service in the host, relays each renderer's
// requests and the host's pushes, and makes the transport's calls. When the host is gone (a crash,
// an out-of-memory end), every request waiting and every one after fails with the reason.

import type { ChainFilter, EventFilter, ExportFormat } from '../../shared/api-types';
import type { InvokeChannel, PushChannel } from '../../shared/contract';
import { missingCase } from '../../shared/records';
import type { ServiceOptions } from '../service/service';
import type { HostPort } from './host-port';
import type { MetricsFormat, MetricsText } from '../metrics/metrics-hub';
import type { FromHost, HostCallName, HostCalls, ToHost } from './host-protocol';

/** What one renderer does through the link. */
export interface LinkedClient {
  invoke(channel: InvokeChannel, args: unknown[]): Promise<unknown>;
  /** Whether its transport can take a frame now; the host builds none for it while it cannot. */
  setWritable(writable: boolean): void;
  close(): void;
}

type PushListener = (channel: PushChannel, payload: unknown) => void;

interface Waiting {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

/** The service, as seen from the thread that serves the screen. */
export class ServiceLink implements HostCalls {
  private readonly waiting = new Map<number, Waiting>();
  private readonly clients = new Map<number, PushListener>();
  private readonly lostListeners = new Set<(reason: string) => void>();
  private nextId = 1;
  private nextClient = 1;
  private lostReason: string | null = null;
  private started: Waiting | null = null;
  /** The live session holds events not saved (kept current by the host, read synchronously). */
  unsaved = false;

  /** `lossText` turns why the host ended into what the user reads (what is kept, what to do). */
  constructor(
    private readonly port: HostPort,
    private readonly lossText: (why: string) => string = (why) => why,
  ) {
    port.listen((message) => this.receive(message as FromHost));
  }

  /** Starts the service in the host; rejects with its reason when it cannot start. */
  start(options: ServiceOptions): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.lostReason) return reject(new Error(this.lostReason));
      this.started = { resolve: () => resolve(), reject };
      this.send({ kind: 'start', options });
    });
  }

  /** A renderer comes: `onPush` gets its frames (and any other push) from now on. */
  connect(onPush: PushListener): LinkedClient {
    const client = this.nextClient++;
    this.clients.set(client, onPush);
    this.send({ kind: 'attach', client });
    let writable = true;
    return {
      invoke: (channel, args) => this.request({ kind: 'invoke', client, channel, args }),
      setWritable: (w) => {
        if (w === writable) return;
        writable = w;
        this.send({ kind: 'writable', client, writable: w });
      },
      close: () => {
        if (!this.clients.delete(client)) return;
        this.send({ kind: 'detach', client });
      },
    };
  }

  /** Called once when the host is gone, with why. */
  onLost(listener: (reason: string) => void): void {
    this.lostListeners.add(listener);
  }

  /** Why the host is gone, or null while it runs. */
  get lost(): string | null {
    return this.lostReason;
  }

  /**
   * The host ended or failed (`why`): every request waiting fails with the loss text, and so will
   * every later one. Called by whoever watches the thread or process, and on the host's own fault.
   */
  hostLost(why: string): void {
    if (this.lostReason) return;
    const reason = this.lossText(why);
    this.lostReason = reason;
    const error = new Error(reason);
    this.started?.reject(error);
    this.started = null;
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
    for (const listener of this.lostListeners) listener(reason);
  }

  openSession(file: string, name: string) {
    return this.call('openSession', file, name);
  }

  importCapture(file: string, name: string) {
    return this.call('importCapture', file, name);
  }

  saveSession(target: string) {
    return this.call('saveSession', target);
  }

  saveSessionCopy(target: string) {
    return this.call('saveSessionCopy', target);
  }

  ratesCsv() {
    return this.call('ratesCsv');
  }

  exportEvents(target: string, filter: EventFilter, format: ExportFormat) {
    return this.call('exportEvents', target, filter, format);
  }

  exportChains(target: string, filter: ChainFilter, format: ExportFormat) {
    return this.call('exportChains', target, filter, format);
  }

  metricsText(format: MetricsFormat = 'prometheus'): Promise<MetricsText> {
    return this.call('metricsText', format);
  }

  listProfiles() {
    return this.call('listProfiles');
  }

  close() {
    return this.call('close');
  }

  private call<C extends HostCallName>(
    call: C,
    ...args: Parameters<HostCalls[C]>
  ): ReturnType<HostCalls[C]> {
    return this.request({ kind: 'call', call, args }) as ReturnType<HostCalls[C]>;
  }

  private request(
    message:
      | Omit<Extract<ToHost, { kind: 'invoke' }>, 'id'>
      | Omit<Extract<ToHost, { kind: 'call' }>, 'id'>,
  ): Promise<unknown> {
    if (this.lostReason) return Promise.reject(new Error(this.lostReason));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ ...message, id } as ToHost);
    });
  }

  private send(message: ToHost): void {
    if (!this.lostReason) this.port.post(message);
  }

  private receive(m: FromHost): void {
    switch (m.kind) {
      case 'started':
        this.started?.resolve(undefined);
        this.started = null;
        return;
      case 'start-failed':
        this.started?.reject(new Error(m.error));
        this.started = null;
        // Nothing will answer after a failed start: whatever still asks is told why.
        this.hostLost(m.error);
        return;
      case 'reply': {
        const w = this.waiting.get(m.id);
        if (!w) return;
        this.waiting.delete(m.id);
        if (m.ok) w.resolve(m.result);
        else w.reject(new Error(m.error));
        return;
      }
      case 'push':
        this.clients.get(m.client)?.(m.channel, m.payload);
        return;
      case 'fault':
        this.hostLost(m.error);
        return;
      case 'unsaved':
        this.unsaved = m.value;
        return;
      default:
        missingCase(m);
    }
  }
}

// kill -9 under load: the real `kvscope serve` takes a fast stream of the simulator's batches, a WebSocket
// client reads what the service shows (the events count of each update frame, and the
// recording's own status), the serve process is killed with SIGKILL at a random moment, and the
// recording file it leaves is read back with the session reader (which reads a cut file).
// Shared by the kill -9 test and `npm run bench crash`; no vitest import, so benches can bundle it.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { WebSocket } from 'ws';
import type { RecordingStatus, UpdateFrame } from '../../shared/api-types';
import { WS_PATH } from '../../shared/ws-protocol';
import { readSession } from '../../electron/session/read-session';
import { listRecordingFiles } from '../../electron/session/recording-retention';
import { CLI, ROOT } from './built-app';
import { FastPublisher } from './fast-publisher';

/** A CLI child process with its output kept. */
export interface Child {
  proc: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  exited: Promise<void>;
}

/** Runs `node dist/cli.cjs ...args`. */
export function cli(args: string[]): Child {
  const proc = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return { proc, stdout: () => out, stderr: () => err, exited };
}

/** Ends a child (SIGTERM, then SIGKILL if it lingers) and waits for it. */
export async function stopChild(c: Child | undefined): Promise<void> {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill('SIGTERM');
  const timer = setTimeout(() => c.proc.kill('SIGKILL'), 5000);
  await c.exited;
  clearTimeout(timer);
}

/** Waits until `pattern` matches the text `read` returns; rejects with that text otherwise. */
async function waitForOutput(
  c: Child,
  read: () => string,
  pattern: RegExp,
  what: string,
): Promise<string> {
  const until = Date.now() + 30_000;
  for (;;) {
    const m = pattern.exec(read());
    if (m?.[1]) return m[1];
    if (c.proc.exitCode !== null || Date.now() > until) {
      throw new Error(`${what} did not start:\n${c.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `kvscope serve` on a free port with its own data folder; resolves with its URL. */
export async function startServeChild(
  dataDir: string,
  extra: string[],
): Promise<{ serve: Child; url: string }> {
  const serve = cli(['serve', '--port', '0', '--data-dir', dataDir, ...extra]);
  const url = await waitForOutput(
    serve,
    serve.stdout,
    /serving on (http:\/\/\S+)/,
    'kvscope serve',
  );
  return { serve, url };
}

/** What one update frame showed, and when it arrived. */
export interface Shown {
  at: number;
  events: number;
  /** Batches the sources received. */
  messages: number;
  recording: RecordingStatus;
}

/** A renderer stand-in over the WebSocket: it acks every frame and keeps the latest. */
export class FrameReader {
  latest: Shown | null = null;
  frames = 0;
  /** The size of each update message, in bytes. */
  readonly bytes: number[] = [];
  private nextId = 1;
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { push?: string; payload?: UpdateFrame };
      if (msg.push !== 'update' || !msg.payload) return;
      const f = msg.payload;
      this.frames += 1;
      this.bytes.push(Buffer.byteLength(String(data)));
      const messages = f.sources.reduce((n, s) => n + s.counters.messages, 0);
      this.latest = { at: Date.now(), events: f.kpis.events, messages, recording: f.recording };
      ws.send(JSON.stringify({ id: this.nextId++, channel: 'frames:ack', args: [f.n] }));
    });
    // The server going away (the kill) closes the socket: nothing to report.
    ws.on('error', () => undefined);
  }

  /** Connects to a serve URL as its own page would. */
  static async connect(url: string): Promise<FrameReader> {
    const origin = new URL(url).origin;
    const ws = new WebSocket(`${origin.replace(/^http/, 'ws')}${WS_PATH}`, { origin });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new FrameReader(ws);
  }

  close(): void {
    this.ws.terminate();
  }
}

/** Resident set size of a process in MB (Linux /proc), or null where it cannot be read. */
export async function rssMb(pid: number): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
  const kb = status && /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : null;
}

/** One kill -9 and what the recording held afterwards. */
export interface CrashResult {
  rate: number;
  /** Events the last frame before the kill showed. */
  shownEvents: number;
  /** The recording's status in that frame. */
  shownRecording: RecordingStatus;
  /** Milliseconds between that frame and the kill. */
  frameAgeMs: number;
  /** Events the recording file holds (read after the kill, as the session reader reads a cut file). */
  fileEvents: number;
  /** shown - file, at least 0: what was on screen and is not in the file. */
  lostEvents: number;
  /** Events per second the screen showed arriving over the run. */
  shownRate: number;
  /** Batches per second the sources received over the run. */
  batchRate: number;
  /** Batches per second the publisher sent over the run (more than received: the rest was dropped at ZeroMQ's high-water mark, and shown as lost). */
  publishedRate: number;
  /** Highest RSS of the serve process seen during the run, MB (null off Linux). */
  peakRssMb: number | null;
  /** Problems the reader reported (the cut end, as expected). */
  problems: string[];
}

/**
 * Streams `rate` batches/s into a fresh serve, waits `warmMs` of flowing events plus a random part
 * of `jitterMs`, kills serve with SIGKILL and reads the recording it leaves in `dataDir`.
 */
export async function killUnderLoad(opts: {
  rate: number;
  dataDir: string;
  warmMs: number;
  jitterMs: number;
}): Promise<CrashResult> {
  const publisher = await FastPublisher.start(opts.rate);
  const endpoint = publisher.endpoint;
  let serve: Child | undefined;
  let reader: FrameReader | undefined;
  try {
    const started = await startServeChild(opts.dataDir, ['--endpoint', endpoint]);
    serve = started.serve;
    reader = await FrameReader.connect(started.url);
    const pid = serve.proc.pid ?? 0;
    let peak: number | null = null;
    const sample = async () => {
      const mb = await rssMb(pid);
      if (mb !== null) peak = Math.max(peak ?? 0, mb);
    };
    // The stream is flowing once a frame shows events.
    const r = reader;
    await until(() => (r.latest?.events ?? 0) > 0, 'the first events on screen', 30_000, sample);
    const first = r.latest as Shown;
    const firstSent = publisher.sent;
    const killAt = Date.now() + opts.warmMs + Math.random() * opts.jitterMs;
    await until(
      () => Date.now() >= killAt,
      'the kill moment',
      opts.warmMs + opts.jitterMs + 5000,
      sample,
    );
    await sample();
    const shown = r.latest as Shown;
    const sent = publisher.sent;
    serve.proc.kill('SIGKILL');
    const killedAt = Date.now();
    await serve.exited;
    const files = await listRecordingFiles(path.join(opts.dataDir, 'recordings'));
    const file = files.at(-1);
    if (!file) throw new Error(`no recording in ${opts.dataDir}`);
    const read = await readSession(file.path, () => undefined);
    const seconds = (shown.at - first.at) / 1000;
    return {
      rate: opts.rate,
      shownEvents: shown.events,
      shownRecording: shown.recording,
      frameAgeMs: killedAt - shown.at,
      fileEvents: read.counts.events,
      lostEvents: Math.max(0, shown.events - read.counts.events),
      shownRate: seconds > 0 ? (shown.events - first.events) / seconds : 0,
      batchRate: seconds > 0 ? (shown.messages - first.messages) / seconds : 0,
      publishedRate: seconds > 0 ? (sent - firstSent) / ((shown.at - first.at) / 1000) : 0,
      peakRssMb: peak,
      problems: read.problems,
    };
  } finally {
    reader?.close();
    await stopChild(serve);
    publisher.close();
  }
}

/** Polls `cond` every 50 ms (running `tick` each time) until it holds; rejects after `timeoutMs`. */
async function until(
  cond: () => boolean,
  what: string,
  timeoutMs: number,
  tick: () => Promise<void>,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await tick();
    await new Promise((r) => setTimeout(r, 50));
  }
}

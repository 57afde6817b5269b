// Replaying a saved session or a JSONL capture through a fresh model, with progress.

import { Readable } from 'node:stream';
import type { EventRecord } from '../../shared/events';
import { CacheModel, type CacheModelOptions } from '../model/cache-model';
import type { SessionHeader, SessionRecord } from './format';
import type { SessionInput } from './line-reader';
import { NotASessionError, readSession } from './read-session';
import { importSeedCapture } from './seed-capture';

export interface LoadResult {
  model: CacheModel;
  kind: 'session' | 'capture';
  /** The session's header (null for a capture). */
  header: SessionHeader | null;
  problems: string[];
  events: number;
}

export interface LoadOptions {
  onProgress?: (fraction: number) => void;
  /** auto: a session if the first line is a header, else a capture (needs a path or a Buffer). */
  kind?: 'session' | 'capture' | 'auto';
  /** Source name for a capture's events. */
  captureSource?: string;
  model?: CacheModel;
  modelOptions?: CacheModelOptions;
}

/** Feeds records to a model, grouping consecutive events of one (source, seq) into one batch. */
export class ModelFeeder {
  private batch: EventRecord[] = [];
  constructor(readonly model: CacheModel) {}

  push(r: SessionRecord): void {
    if (r.k === 'event') {
      const head = this.batch[0];
      if (head && (head.source !== r.rec.source || head.seq !== r.rec.seq)) this.flush();
      this.batch.push(r.rec);
      return;
    }
    this.flush();
    if (r.k === 'gap') this.model.applyGap(r.rec);
    else if (r.k === 'reset') this.model.applyReset(r.rec);
    else if (r.k === 'undecoded') this.model.applyUndecoded(r.rec);
    else if (r.k === 'event-error') this.model.applyEventError(r.rec);
  }

  flush(): void {
    if (this.batch.length === 0) return;
    const b = this.batch;
    this.batch = [];
    this.model.applyBatch(b);
  }
}

/** Replay a session file (or a capture) into a model; problems list what could not be read. */
export async function loadIntoModel(
  input: SessionInput,
  opts: LoadOptions = {},
): Promise<LoadResult> {
  const kind = opts.kind ?? 'auto';
  if (kind === 'auto' && input instanceof Readable) {
    throw new Error(
      'loadIntoModel: say kind "session" or "capture" for a stream (it cannot be read twice)',
    );
  }
  if (kind !== 'capture') {
    const model = opts.model ?? new CacheModel(opts.modelOptions);
    const feeder = new ModelFeeder(model);
    try {
      const r = await readSession(input, (rec) => feeder.push(rec), opts.onProgress);
      feeder.flush();
      return {
        model,
        kind: 'session',
        header: r.header,
        problems: r.problems,
        events: r.counts.events,
      };
    } catch (e) {
      if (!(e instanceof NotASessionError) || kind === 'session') throw e;
    }
  }
  const model = opts.model && kind === 'capture' ? opts.model : new CacheModel(opts.modelOptions);
  const feeder = new ModelFeeder(model);
  const r = await importSeedCapture(input, (rec) => feeder.push(rec), {
    source: opts.captureSource,
    onProgress: opts.onProgress,
  });
  feeder.flush();
  if (r.events === 0 && r.undecoded === 0) {
    throw new Error(
      `not a KV Scope session or a KV events capture: no events could be read${r.problems[0] ? ` (${r.problems[0]})` : ''}`,
    );
  }
  return { model, kind: 'capture', header: null, problems: r.problems, events: r.events };
}

// The live side: what the sources deliver goes to the recording file first (so a crash loses
// nothing already received), then into the live model.

import { APP_VERSION } from '../app-version';
import type { RecordingStatus } from '../../shared/api-types';
import type { IngestSink } from '../../shared/records';
import type { AnalysisGroupOption, CacheAnalysis } from '../analysis/cache-analysis';
import type { CacheModel } from '../model/cache-model';
import { EventLines, readEventLine } from '../session/event-line';
import type { SessionSource } from '../session/format';
import { ModelAndAnalysis } from '../session/model-and-analysis';
import { Recording, sayRecordingFailure } from '../session/recording';

/** The always-on recording and the model of the live view. */
export class LiveSession {
  /** The model and the analysis over one hash id table (a block is looked up once for both). */
  private readonly both: ModelAndAnalysis;
  readonly model: CacheModel;
  /** The Insights' figures, fed the same records as the model. */
  readonly analysis: CacheAnalysis;
  readonly sink: IngestSink;
  /** True once something arrived that the user has not saved. */
  unsaved = false;
  /** Wall clock (ms) when the latest event time last advanced. */
  private latestTsAt = 0;
  private latestTs: number | null = null;
  private readonly listeners = new Set<() => void>();

  private constructor(
    private readonly recording: Recording,
    analysisOptions: AnalysisGroupOption,
  ) {
    this.both = new ModelAndAnalysis({ readEventLine }, analysisOptions);
    this.model = this.both.model;
    this.analysis = this.both.analysis;
    // Recording first: what reached the model (and so the screen) is on its way to the disk.
    // A batch's events are encoded once, as bytes: the recording copies the lines into its gzip
    // segment, the event log into its arena.
    const lines = new EventLines();
    this.sink = {
      record: (r) => {
        let encoded: EventLines | undefined;
        if (r.k === 'batch') {
          lines.clear();
          for (const e of r.events) lines.add(e);
          encoded = lines;
        }
        recording.record(r, encoded);
        this.both.apply(r, encoded);
        this.changed();
      },
      clockOffset: (source, seconds) => {
        recording.setClockOffset(source, seconds);
        this.both.setClockOffset(source, seconds);
      },
    };
  }

  private changed(): void {
    this.unsaved = true;
    const ts = this.model.nowTs();
    if (ts !== this.latestTs) {
      this.latestTs = ts;
      this.latestTsAt = Date.now();
    }
    for (const listener of this.listeners) listener();
  }

  /**
   * Opens a new recording file in `dir`. A failure to write it is said on stderr too, once: a
   * headless `kvscope serve` has no page open to show it.
   */
  static async start(dir: string, analysisOptions: AnalysisGroupOption = {}): Promise<LiveSession> {
    const recording = await Recording.create({
      dir,
      app: APP_VERSION,
      onWriteError: sayRecordingFailure,
    });
    return new LiveSession(recording, analysisOptions);
  }

  /**
   * Event time now: the latest event time moved on by the wall time since it arrived, so the rates
   * of a stream that went silent fall to zero.
   */
  eventTimeNow(): number | undefined {
    if (this.latestTs === null) return undefined;
    return this.latestTs + (Date.now() - this.latestTsAt) / 1000;
  }

  /** Bytes of the model's, the analysis' and the recording's structures, by part (for /metrics). */
  memoryParts(): Record<string, number> {
    return { ...this.both.memoryParts(), recording_queue: this.recording.bytes() };
  }

  /** Why the recording file could not be written, if it could not. */
  get recordingError(): string | null {
    return this.recording.writeError;
  }

  /** How far the recording file is behind what arrived, and what it could not take. */
  recordingStatus(): RecordingStatus {
    return this.recording.status();
  }

  /** The file being written (never removed by retention, not offered to reopen). */
  get recordingPath(): string {
    return this.recording.path;
  }

  /** Names a source in the recording (once per id), so a reopened session knows it. */
  addSource(source: SessionSource): void {
    this.recording.addSource(source);
  }

  /**
   * Takes a removed source out of every total, and marks it removed in the recording (now) so a
   * reopened session does the same there.
   */
  removeSource(id: string): void {
    this.recording.removeSource(id, Date.now() / 1000);
    this.both.removeSource(id);
  }

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Saves the recording to `target` atomically; the session counts as saved. */
  async saveAs(target: string): Promise<void> {
    await this.recording.saveAs(target);
    this.unsaved = false;
  }

  async close(): Promise<void> {
    await this.recording.close();
  }
}

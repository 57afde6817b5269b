// What the views show: the live model, or a file opened read-only in its place, with the progress
// of an opening and the problems of what is shown.

import type {
  FileLoad,
  FileProgress,
  FileResult,
  RemovedSource,
  ViewInfo,
  ViewSource,
} from '../../shared/api-types';
import { failed, loaded } from '../../shared/file-result';
import { problemCount } from '../../shared/problem-list';
import type { CacheAnalysis } from '../analysis/cache-analysis';
import type { CacheModel } from '../model/cache-model';
import type { SessionHeader } from '../session/format';
import { liveTitle } from './live-title';
import type { LiveSession } from './live-session';
import { recordingFailure } from '../session/recording';

interface OpenedFile {
  model: CacheModel;
  analysis: CacheAnalysis;
  title: string;
  problems: string[];
  /** Source id → the name the file gives it (its header and source lines). */
  names: ReadonlyMap<string, string>;
  /** The sources the file marks removed (their last line says so). */
  removed: RemovedSource[];
}

/** Live or opened, and how the header should name it. */
export class ViewState {
  private opened: OpenedFile | null = null;
  private progress: FileProgress | null = null;
  /** The file being opened: its cancel flag is read at each progress report. */
  private loading: { cancelled: boolean } | null = null;
  /** Bumped when the view switches, so renderers refetch everything. */
  epoch = 1;

  constructor(
    private readonly live: LiveSession,
    /** What the live view should say it could not do (a corrupt profiles file, say). */
    private readonly liveProblems: readonly string[],
    private readonly changed: () => void,
  ) {}

  /** The model behind every query. */
  get model(): CacheModel {
    return this.opened?.model ?? this.live.model;
  }

  /** The analysis behind the Insights. */
  get analysis(): CacheAnalysis {
    return this.opened?.analysis ?? this.live.analysis;
  }

  get isLive(): boolean {
    return this.opened === null;
  }

  /**
   * Loads a file into a new model and shows it; on failure or cancel the view stays as it was.
   * `totalBytes` (when known) turns the reader's fraction into bytes read of total; `load` says
   * whether it is an open or an import (a cancel names it).
   */
  async open(
    load: FileLoad,
    name: string,
    totalBytes: number | null,
    read: (onProgress: (fraction: number) => void) => Promise<{
      model: CacheModel;
      analysis: CacheAnalysis;
      problems: string[];
      header?: SessionHeader | null;
      /** Read back from the open cache. */
      restored?: boolean;
    }>,
  ): Promise<FileResult> {
    // One load at a time: a second open stops the first.
    if (this.loading) this.loading.cancelled = true;
    const loading = { cancelled: false };
    this.loading = loading;
    const report = (fraction: number): void => {
      const bytesRead = totalBytes === null ? null : Math.round(fraction * totalBytes);
      this.progress = { name, fraction, bytesRead, totalBytes };
      this.changed();
    };
    report(0);
    try {
      const { model, analysis, problems, header, restored } = await read((fraction) => {
        // Thrown from inside the reader's loop, this stops the read where it is.
        if (loading.cancelled) throw new LoadCancelled();
        report(fraction);
      });
      if (loading.cancelled) throw new LoadCancelled();
      const sources = header?.sources ?? [];
      const names = new Map(sources.map((s) => [s.id, s.name.trim() || s.id]));
      const removed = sources.flatMap(({ id, removedAt }) =>
        removedAt === undefined ? [] : [{ id, name: names.get(id) ?? id, removedAt }],
      );
      this.opened = { model, analysis, title: name, problems, names, removed };
      this.epoch++;
      return loaded(load, name, problemCount(problems), restored === true);
    } catch (err) {
      if (err instanceof LoadCancelled || loading.cancelled) {
        return { status: 'cancelled', name, load };
      }
      return failed(load, err, name);
    } finally {
      if (this.loading === loading) {
        this.loading = null;
        this.progress = null;
      }
      this.changed();
    }
  }

  /** Stops the file being opened; true when one was. */
  cancelOpen(): boolean {
    if (!this.loading) return false;
    this.loading.cancelled = true;
    return true;
  }

  backToLive(): void {
    if (!this.opened) return;
    this.opened = null;
    this.epoch++;
    this.changed();
  }

  /**
   * The sources of the view shown with their names: `live` (the connections) while live, else
   * the opened file's sources that have events, named as the file names them.
   */
  sources(live: readonly ViewSource[]): ViewSource[] {
    const opened = this.opened;
    if (!opened) return [...live];
    return opened.model.sources().map((id) => ({ id, name: opened.names.get(id) ?? id }));
  }

  /**
   * The header's view of things; `demo`: whether the simulator runs and whether its connection is
   * connected (only then is its stream live, in the title); `live`: the connections, the live
   * view's sources; `connected`: the names of the connections connected besides the demo.
   */
  info(
    demo: { running: boolean; live: boolean },
    connected: readonly string[],
    live: readonly ViewSource[],
  ): ViewInfo {
    return {
      kind: this.opened ? 'session' : 'live',
      title: this.opened?.title ?? liveTitle(demo.live, connected),
      unsaved: !this.opened && this.live.unsaved,
      demo: !this.opened && demo.running,
      progress: this.progress,
      problems: this.problems(),
      sources: this.sources(live),
      removedSources: this.opened?.removed ?? [],
    };
  }

  private problems(): string[] {
    if (this.opened) return this.opened.problems;
    const failedWrite = this.live.recordingError;
    if (!failedWrite) return [...this.liveProblems];
    return [...this.liveProblems, recordingFailure(failedWrite)];
  }
}

/** The user stopped a file while it was being read. */
class LoadCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'LoadCancelled';
  }
}

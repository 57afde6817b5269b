// The model and the analysis fed the same records, as an open and the live session feed them:
// both intern hashes through one SharedHashIds, and each batch's hashes are looked up once, before
// either runs (BatchIds), so a block costs one look-up by text where it cost one per side.

import type { IngestRecord } from '../../shared/records';
import { CacheAnalysis, type CacheAnalysisOptions } from '../analysis/cache-analysis';
import { BatchIds } from '../collections/batch-ids';
import { SharedHashIds } from '../collections/shared-hash-ids';
import type { LineBytes } from '../model/event-ring';
import { CacheModel, type CacheModelOptions } from '../model/cache-model';

/** A CacheModel and a CacheAnalysis over one hash id table. */
export class ModelAndAnalysis {
  readonly model: CacheModel;
  readonly analysis: CacheAnalysis;
  private readonly ids: BatchIds;

  constructor(modelOptions: CacheModelOptions = {}, analysisOptions: CacheAnalysisOptions = {}) {
    const hashIds = new SharedHashIds();
    this.model = new CacheModel({ ...modelOptions, hashIds });
    this.analysis = new CacheAnalysis({ ...analysisOptions, hashIds });
    this.ids = new BatchIds(hashIds);
  }

  /** Bytes of the typed arrays of both, by part, the shared hash id table once (for /metrics). */
  memoryParts(): Record<string, number> {
    return {
      hash_ids: this.ids.table.bytes(),
      ...this.model.memoryParts(),
      ...this.analysis.memoryParts(),
    };
  }

  /** Charts a source's batches at their ts plus `seconds` in both (its clock is that far off). */
  setClockOffset(id: string, seconds: number): void {
    this.model.setClockOffset(id, seconds);
    this.analysis.setClockOffset(id, seconds);
  }

  /** Takes a removed source out of both (every total), live or where a session marks it removed. */
  removeSource(id: string): void {
    this.model.removeSource(id);
    this.analysis.removeSource(id);
  }

  /** Applies one record to the model (with its event lines, as CacheModel.apply) and the analysis. */
  apply(r: IngestRecord, lines?: readonly string[] | LineBytes): void {
    if (r.k !== 'batch') {
      this.model.apply(r);
      this.analysis.apply(r);
      return;
    }
    // One look-up for both, held until both applied.
    this.ids.lookUp(r.events, (ids) => {
      this.model.apply(r, lines, ids);
      this.analysis.apply(r, ids);
    });
  }
}

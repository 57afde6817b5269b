// A source's schema fingerprint, merged from the shape of every batch it sent. observe() is a
// few bit operations per batch; the readable snapshot is rebuilt only when something new shows.

import type { SchemaFingerprint } from '../../shared/events';
import type { BatchShape, RankField } from './decode-batch';
import { describeShape } from './decode-batch';

/** Unknown field names kept per source, at most (a drifting publisher cannot grow it forever). */
const MAX_UNKNOWN = 64;

export class FingerprintBuilder {
  private batchBits = 0;
  private eventBits = 0;
  private hashBits = 0;
  private fieldMask = 0;
  private readonly rankFields = new Set<RankField>();
  private readonly unknown = new Set<string>();
  private cached: SchemaFingerprint | null = null;
  private dirty = false;

  /** Merges one batch's shape in. */
  observe(shape: BatchShape): void {
    const batchBit = shape.batch === 'array' ? 1 : 2;
    if (
      (this.batchBits & batchBit) === 0 ||
      (this.eventBits | shape.eventEncodings) !== this.eventBits ||
      (this.hashBits | shape.hashKinds) !== this.hashBits ||
      (this.fieldMask | shape.fieldMask) !== this.fieldMask
    ) {
      this.batchBits |= batchBit;
      this.eventBits |= shape.eventEncodings;
      this.hashBits |= shape.hashKinds;
      this.fieldMask |= shape.fieldMask;
      this.dirty = true;
    }
    if (shape.rankField !== null && !this.rankFields.has(shape.rankField)) {
      this.rankFields.add(shape.rankField);
      this.dirty = true;
    }
    for (const name of shape.unknownFields) {
      if (this.unknown.size < MAX_UNKNOWN && !this.unknown.has(name)) {
        this.unknown.add(name);
        this.dirty = true;
      }
    }
  }

  /** The fingerprint so far, or null before the first batch. Same object until something changes. */
  snapshot(): SchemaFingerprint | null {
    if (this.batchBits === 0) return null;
    if (this.dirty || this.cached === null) {
      const words = describeShape({
        batch: 'array',
        eventEncodings: this.eventBits,
        hashKinds: this.hashBits,
        rankField: null,
        fieldMask: this.fieldMask,
        unknownFields: [...this.unknown],
      });
      const batch: ('array' | 'map')[] = [];
      if (this.batchBits & 1) batch.push('array');
      if (this.batchBits & 2) batch.push('map');
      this.cached = {
        batch,
        events: words.events,
        hashes: words.hashes,
        rankField: [...this.rankFields].sort(),
        fields: words.fields,
        unknownFields: words.unknownFields,
      };
      this.dirty = false;
    }
    return this.cached;
  }
}

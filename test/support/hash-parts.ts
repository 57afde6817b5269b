// Events with their hashes as the live decoder gives u64 hashes (shared/hash-list.ts), for tests
// that feed the same events both ways.
import { parseDecimalKey } from '../../electron/collections/hash-ids';
import type { DecodeResult } from '../../electron/wire/decode-batch';
import type { KvEvent } from '../../shared/events';
import { DecimalHashes, hashTexts } from '../../shared/hash-list';
import { isIntHashKey } from '../../shared/int-hash-key';

/** The event with its hashes as decimal parts, where every one of them is a u64 (else as it is). */
export function asParts<E extends KvEvent>(ev: E): E {
  if (ev.type === 'AllBlocksCleared') return ev;
  const parts: number[] = [];
  const read = { hi: 0, lo: 0 };
  for (const h of hashTexts(ev.block_hashes)) {
    if (!isIntHashKey(h) || !parseDecimalKey(h, read)) return ev;
    parts.push(read.hi, read.lo);
  }
  return { ...ev, block_hashes: new DecimalHashes(parts) };
}

/** A decode's result with every hash list as texts: what the decoder's text mode gives. */
export function withHashTexts(r: DecodeResult): DecodeResult {
  if (!r.ok) return r;
  return {
    ...r,
    events: r.events.map((e) =>
      e.event.type === 'AllBlocksCleared'
        ? e
        : { ...e, event: { ...e.event, block_hashes: [...hashTexts(e.event.block_hashes)] } },
    ),
  };
}

// What `kvscope sim --dp 64` holds: a replay buffer that lets go of each payload once the batch
// leaves it, and 64 ranks on port 0 that find a run of free ports on a busy machine.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { SimPublisher } from '../../electron/sim/publisher';
import type { SimOptions } from '../../electron/sim/types';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0)) await x.close();
});

async function sim(opts: Partial<SimOptions> = {}): Promise<SimPublisher> {
  const s = await SimPublisher.start({ format: 'map', hash: 'int', seed: 7, rate: 0, ...opts });
  open.push(s);
  return s;
}

/** A full collection, from a test run without --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const port = (endpoint: string | null): number => Number(new URL(endpoint ?? '').port);

describe('the simulator at fleet size', () => {
  it('lets go of a payload once its batch has left the replay buffer', async () => {
    // Kept for replay only: what ZeroMQ holds of a sent payload until its I/O thread is done
    // with it is no part of this.
    const s = await sim({ replay: true, replayBuffer: 10, faults: { dropFromPub: () => true } });
    const payloads: WeakRef<Uint8Array>[] = [];
    s.onBatch((b) => payloads.push(new WeakRef(b.payload)));
    await s.publish(100);
    expect(s.bufferedSeqs()).toEqual(Array.from({ length: 10 }, (_, i) => 90 + i));
    // A weak reference clears only once nothing holds its payload (WeakRefs hold for the turn).
    await new Promise<void>((resolve) => setImmediate(resolve));
    collectGarbage();
    const held = payloads.map((p) => p.deref() !== undefined);
    // The 10 batches still buffered are held; none of the 90 before them (they were, until the
    // buffer's next compaction at 4096, which tripled what 64 ranks kept).
    expect(held.slice(90).every(Boolean)).toBe(true);
    expect(held.slice(0, 90).filter(Boolean)).toEqual([]);
  });

  it('puts 64 ranks on port 0 on consecutive ports, the replay ports after them', async () => {
    const s = await sim({ dp: 64, replay: true, replayBuffer: 1 });
    const base = port(s.ranks[0]?.pubEndpoint ?? null);
    expect(s.ranks.map((r) => port(r.pubEndpoint))).toEqual(
      Array.from({ length: 64 }, (_, r) => base + r),
    );
    expect(s.ranks.map((r) => port(r.replayEndpoint))).toEqual(
      Array.from({ length: 64 }, (_, r) => base + 64 + r),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { Workload, hashKey } from '../../electron/sim/workload';
import { Truth } from '../../electron/sim/truth';
import type { RawBlockStored, RawEvent } from '../../electron/sim/types';

function run(w: Workload, batches: number, each?: (events: RawEvent[], t: Truth) => void): Truth {
  const t = new Truth();
  for (let i = 0; i < batches; i++) {
    const events = w.nextBatch();
    t.apply(i, events, false, false);
    each?.(events, t);
  }
  return t;
}

describe('workload', () => {
  it('chains later stores onto a parent that was stored earlier and is resident', () => {
    const w = new Workload({ seed: 3, format: 'map', hash: 'int', clearEvery: 0 });
    const everStored = new Set<string>();
    let withParent = 0;
    run(w, 3000, (events) => {
      for (const e of events) {
        if (e.type !== 'BlockStored' || e.medium !== 'GPU') continue;
        if (e.parent_block_hash !== null) {
          withParent++;
          expect(everStored.has(hashKey(e.parent_block_hash))).toBe(true);
        }
        for (const h of e.block_hashes) everStored.add(hashKey(h));
      }
    });
    expect(withParent).toBeGreaterThan(500);
  });

  it('stores the parent before the child within the chain, and the parent is still resident', () => {
    const w = new Workload({ seed: 5, format: 'array', hash: 'bytes', clearEvery: 0 });
    const t = new Truth();
    let checked = 0;
    for (let i = 0; i < 2000; i++) {
      for (const e of w.nextBatch()) {
        if (e.type === 'BlockStored' && e.medium === 'GPU' && e.parent_block_hash !== null) {
          if (t.isResident('GPU', hashKey(e.parent_block_hash))) checked++;
          else throw new Error(`parent ${hashKey(e.parent_block_hash)} is not resident`);
        }
        t.apply(i, [e], false, false);
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('never holds more blocks than the GPU pool and CPU tier sizes', () => {
    const w = new Workload({
      seed: 9,
      format: 'map',
      hash: 'int',
      gpuBlocks: 640,
      cpuBlocks: 700,
      clearEvery: 0,
    });
    let maxGpu = 0;
    let maxCpu = 0;
    const t = run(w, 3000, (_e, truth) => {
      maxGpu = Math.max(maxGpu, truth.residentCount('GPU'));
      maxCpu = Math.max(maxCpu, truth.residentCount('CPU'));
    });
    expect(maxGpu).toBeLessThanOrEqual(640);
    expect(maxCpu).toBeLessThanOrEqual(700);
    // It really was under pressure: the pool filled, evicted and offloaded.
    expect(maxGpu).toBeGreaterThan(600);
    expect(t.counts.removedBlocks).toBeGreaterThan(1000);
  });

  it('holds no more CPU blocks than a tier smaller than one eviction', () => {
    for (const cpuBlocks of [1, 3]) {
      const w = new Workload({ seed: 9, format: 'map', hash: 'int', gpuBlocks: 640, cpuBlocks });
      let maxCpu = 0;
      let cpuStores = 0;
      run(w, 1500, (events, truth) => {
        maxCpu = Math.max(maxCpu, truth.residentCount('CPU'));
        for (const e of events)
          if (e.type === 'BlockStored' && e.medium === 'CPU') cpuStores += e.block_hashes.length;
      });
      expect(maxCpu).toBe(cpuBlocks);
      expect(cpuStores).toBeGreaterThan(100);
    }
  });

  it('publishes LoRA requests, CPU offload stores and removals, with realistic token ids', () => {
    const w = new Workload({ seed: 11, format: 'map', hash: 'int', gpuBlocks: 640, clearEvery: 0 });
    const seen = { lora: 0, cpuStore: 0, cpuRemove: 0, gpuRemove: 0 };
    let tokens = 0;
    let lo = Infinity;
    let hi = -Infinity;
    run(w, 4000, (events) => {
      for (const e of events) {
        if (e.type === 'BlockStored') {
          if (e.lora_id !== null) {
            seen.lora++;
            expect(e.lora_name).toMatch(/lora/);
          }
          if (e.medium === 'CPU') seen.cpuStore++;
          else expect(e.token_ids.length).toBe(e.block_hashes.length * e.block_size);
          for (const id of e.token_ids) {
            lo = Math.min(lo, id);
            hi = Math.max(hi, id);
          }
          tokens += e.token_ids.length;
        } else if (e.type === 'BlockRemoved') {
          if (e.medium === 'CPU') seen.cpuRemove++;
          else seen.gpuRemove++;
        }
      }
    });
    expect(seen.lora).toBeGreaterThan(10);
    expect(seen.cpuStore).toBeGreaterThan(10);
    expect(seen.cpuRemove).toBeGreaterThan(0);
    expect(seen.gpuRemove).toBeGreaterThan(10);
    expect(tokens).toBeGreaterThan(10_000);
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThanOrEqual(150_000);
    expect(hi).toBeGreaterThan(100_000);
  });

  it('uses u64 hashes above 2^53 and 2^63 and a few small ones', () => {
    const w = new Workload({ seed: 2, format: 'map', hash: 'int', clearEvery: 0 });
    const hashes: bigint[] = [];
    run(w, 1500, (events) => {
      for (const e of events)
        if (e.type === 'BlockStored') hashes.push(...(e.block_hashes as bigint[]));
    });
    expect(hashes.every((h) => typeof h === 'bigint' && h >= 0n && h < 2n ** 64n)).toBe(true);
    expect(hashes.filter((h) => h >= 2n ** 63n).length).toBeGreaterThan(hashes.length / 3);
    expect(hashes.filter((h) => h > 2n ** 53n).length).toBeGreaterThan(hashes.length / 2);
    expect(hashes.filter((h) => h < 65536n).length).toBeGreaterThan(0);
  });

  it('uses 32-byte digests in bytes mode', () => {
    const w = new Workload({ seed: 2, format: 'map', hash: 'bytes', clearEvery: 0 });
    const e = w.nextBatch().find((x): x is RawBlockStored => x.type === 'BlockStored');
    expect(e?.block_hashes[0]).toBeInstanceOf(Uint8Array);
    expect((e?.block_hashes[0] as Uint8Array).length).toBe(32);
  });

  it('clear() empties both tiers explicitly and then sends AllBlocksCleared', () => {
    const w = new Workload({ seed: 4, format: 'map', hash: 'int', gpuBlocks: 640, clearEvery: 0 });
    const t = run(w, 800);
    expect(t.residentCount('GPU')).toBeGreaterThan(0);
    expect(t.residentCount('CPU')).toBeGreaterThan(0);
    w.clear();
    let cleared = false;
    for (let i = 0; !cleared && i < 5000; i++) {
      for (const e of w.nextBatch()) {
        if (e.type === 'AllBlocksCleared') {
          // Every CPU block was removed explicitly before the clear.
          expect(t.residentCount('CPU')).toBe(0);
          cleared = true;
        }
        t.apply(i, [e], false, false);
        if (cleared) break;
      }
    }
    expect(cleared).toBe(true);
    expect(t.counts.clears).toBe(1);
    expect(t.residentCount('GPU')).toBe(0);
  });

  it('sends an occasional AllBlocksCleared on its own', () => {
    const w = new Workload({ seed: 1, format: 'array', hash: 'int', clearEvery: 300 });
    const t = run(w, 3000);
    expect(t.counts.clears).toBeGreaterThan(0);
    expect(t.counts.clears).toBeLessThan(40);
  });

  it('keeps the events per batch within the asked range', () => {
    const w = new Workload({
      seed: 8,
      format: 'map',
      hash: 'int',
      eventsPerBatch: [2, 3],
      clearEvery: 0,
    });
    for (let i = 0; i < 500; i++) {
      const n = w.nextBatch().length;
      expect(n >= 2 && n <= 3).toBe(true);
    }
  });
});

// A generated `kvscope capture --json`-style capture of two data-parallel ranks: shared system
// prompts on both ranks, LRU eviction of a small GPU pool with a CPU offload tier, re-announced
// hits, u64 hashes as bare JSON integers (many above 2^53 and 2^63), one AllBlocksCleared.
import type { OracleInput } from './oracle';

/** The capture's text and the same events as the oracle reads them. */
export interface GeneratedCapture {
  text: string;
  inputs: OracleInput[];
  tokenIds: number[];
}

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Generates the capture (deterministic for a seed). */
export function twoRankCapture(seed = 5, requests = 700): GeneratedCapture {
  const rnd = prng(seed);
  const u64 = (): string =>
    ((BigInt(Math.floor(rnd() * 2 ** 32)) << 32n) | BigInt(Math.floor(rnd() * 2 ** 32))).toString();
  const systems = Array.from({ length: 6 }, () =>
    Array.from({ length: 3 + Math.floor(rnd() * 6) }, u64),
  );
  const gpuCap = 90;
  const lines: string[] = [];
  const inputs: OracleInput[] = [];
  const tokenIds: number[] = [];
  const lru = [new Map<string, true>(), new Map<string, true>()];
  const cpu = [new Set<string>(), new Set<string>()];
  const seq = [0, 0];
  let ts = 1_767_225_600.25;
  const emit = (rank: number, o: Record<string, unknown>, raw: string): void => {
    const source = rank === 0 ? 'capture' : `capture#${rank}`;
    lines.push(raw);
    if (o.type === 'AllBlocksCleared') inputs.push({ kind: 'cleared', source });
    else if (o.type === 'BlockRemoved')
      inputs.push({
        kind: 'removed',
        source,
        ts,
        hashes: o.block_hashes as string[],
        medium: o.medium as string,
      });
    else
      inputs.push({
        kind: 'stored',
        source,
        ts,
        hashes: o.block_hashes as string[],
        parent: (o.parent_block_hash as string | null) ?? null,
        medium: o.medium as string,
        blockSize: 16,
      });
  };
  const line = (rank: number, type: string, hashes: string[], fields: string): string =>
    `{"ts":${ts},"seq":${seq[rank]},"dp_rank":${rank},"type":"${type}","block_hashes":[${hashes.join(',')}]${fields}}`;
  for (let r = 0; r < requests; r++) {
    ts += 0.05 + rnd() * 0.4;
    // Routing: sticky to the system prompt most of the time, otherwise random.
    const sys = Math.floor(rnd() * systems.length);
    const rank = rnd() < 0.7 ? sys % 2 : Math.floor(rnd() * 2);
    const chain = [
      ...(systems[sys] as string[]),
      ...Array.from({ length: 1 + Math.floor(rnd() * 5) }, u64),
    ];
    const cache = lru[rank] as Map<string, true>;
    if (r === Math.floor(requests / 2) && rank === 1) {
      lines.push(`{"ts":${ts},"seq":${seq[rank]},"dp_rank":1,"type":"AllBlocksCleared"}`);
      inputs.push({ kind: 'cleared', source: 'capture#1' });
      cache.clear();
      (cpu[1] as Set<string>).clear();
      seq[rank] = (seq[rank] as number) + 1;
      continue;
    }
    let start = 0;
    while (start < chain.length && cache.has(chain[start] as string)) start += 1;
    // A full-report engine re-announces the resident part (a hit) half of the time.
    const from = start > 0 && rnd() < 0.5 ? 0 : start;
    const hashes = chain.slice(from);
    for (const h of chain) {
      cache.delete(h);
      cache.set(h, true);
    }
    if (hashes.length > 0) {
      const parent = from === 0 ? null : (chain[from - 1] as string);
      const ids = r % 50 === 0 ? [900001 + r, 900002 + r] : null;
      if (ids) tokenIds.push(...ids);
      const o = {
        type: 'BlockStored',
        block_hashes: hashes,
        parent_block_hash: parent,
        medium: 'GPU',
      };
      emit(
        rank,
        o,
        line(
          rank,
          'BlockStored',
          hashes,
          `,"parent_block_hash":${parent ?? 'null'},"token_count":${hashes.length * 16},${ids ? `"token_ids":[${ids.join(',')}],` : ''}"block_size":16,"lora_id":null,"medium":"GPU"`,
        ),
      );
    }
    const evicted: string[] = [];
    while (cache.size > gpuCap) {
      const oldest = cache.keys().next().value as string;
      cache.delete(oldest);
      evicted.push(oldest);
    }
    if (evicted.length > 0) {
      emit(
        rank,
        { type: 'BlockRemoved', block_hashes: evicted, medium: 'GPU' },
        line(rank, 'BlockRemoved', evicted, ',"medium":"GPU"'),
      );
      // Offload a part to CPU, and let the CPU tier drop what it held longest.
      const tier = cpu[rank] as Set<string>;
      const off = evicted.filter(() => rnd() < 0.4);
      if (off.length > 0) {
        emit(
          rank,
          { type: 'BlockStored', block_hashes: off, parent_block_hash: null, medium: 'CPU' },
          line(
            rank,
            'BlockStored',
            off,
            ',"parent_block_hash":null,"block_size":16,"medium":"CPU"',
          ),
        );
        for (const h of off) tier.add(h);
      }
      if (tier.size > 60) {
        const drop = [...tier].slice(0, tier.size - 60);
        for (const h of drop) tier.delete(h);
        emit(
          rank,
          { type: 'BlockRemoved', block_hashes: drop, medium: 'CPU' },
          line(rank, 'BlockRemoved', drop, ',"medium":"CPU"'),
        );
      }
    }
    seq[rank] = (seq[rank] as number) + 1;
  }
  return { text: `${lines.join('\n')}\n`, inputs, tokenIds };
}

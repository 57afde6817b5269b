// A straightforward brute-force reading of DESIGN.md's "Analysis" definitions, written apart
// from electron/analysis (arrays and linear scans, nothing clever), to check its figures.

/** One event as the oracle sees it (or a publisher restart). */
export type OracleInput =
  | {
      kind: 'stored';
      source: string;
      ts: number;
      hashes: string[];
      parent: string | null;
      medium: string;
      blockSize: number;
    }
  | { kind: 'removed'; source: string; ts: number; hashes: string[]; medium: string }
  | { kind: 'cleared'; source: string }
  | { kind: 'reset'; source: string };

/** Per (source, medium). */
export interface OracleCell {
  source: string;
  medium: string;
  peak: number;
  newStores: number;
  hits: number;
  distances: number[];
  thrash: number;
  resident: number;
}

/** What the oracle computes. */
export interface OracleResult {
  storedBlocks: number;
  removedBlocks: number;
  cells: OracleCell[];
  lifetimes: Map<string, number[]>;
  duplicateStores: number;
  regretBlocks: number;
  regretTokens: number;
  sharedNow: number;
  duplicateNow: number;
  /** "a\u0000b" (order of first appearance) -> hashes held by both. */
  overlap: Map<string, number>;
  hot: { hash: string; fanOut: number; storeEvents: number }[];
  sources: string[];
}

/** Runs every definition over the events, in order. */
export function oracle(events: OracleInput[], thrashWindow = 60): OracleResult {
  const sources: string[] = [];
  const cells: (OracleCell & { R: { h: string; ts: number }[]; G: { h: string; at: number }[] })[] =
    [];
  const cell = (source: string, medium: string): (typeof cells)[number] => {
    if (!sources.includes(source)) sources.push(source);
    let c = cells.find((x) => x.source === source && x.medium === medium);
    if (!c) {
      c = {
        source,
        medium,
        peak: 0,
        newStores: 0,
        hits: 0,
        distances: [],
        thrash: 0,
        resident: 0,
        R: [],
        G: [],
      };
      cells.push(c);
    }
    return c;
  };
  const holds = (source: string, h: string): boolean =>
    cells.some((c) => c.source === source && c.R.some((r) => r.h === h));
  const lifetimes = new Map<string, number[]>();
  const parents = new Map<string, { firsts: string[]; events: number }>();
  let storedBlocks = 0;
  let removedBlocks = 0;
  let duplicateStores = 0;
  let regretBlocks = 0;
  let regretTokens = 0;
  for (const e of events) {
    if (!sources.includes(e.source)) sources.push(e.source);
    if (e.kind === 'cleared' || e.kind === 'reset') {
      for (const c of cells) {
        if (c.source !== e.source) continue;
        c.R = [];
        c.G = [];
      }
      continue;
    }
    const c = cell(e.source, e.medium);
    if (e.kind === 'removed') {
      removedBlocks += e.hashes.length;
      for (const h of e.hashes) {
        const i = c.R.findIndex((r) => r.h === h);
        if (i < 0) continue;
        const life = e.ts - c.R[i]!.ts;
        lifetimes.set(c.medium, [...(lifetimes.get(c.medium) ?? []), life]);
        c.R.splice(i, 1);
        c.G.push({ h, at: e.ts });
      }
      continue;
    }
    storedBlocks += e.hashes.length;
    if (e.parent !== null) {
      const p = parents.get(e.parent) ?? { firsts: [], events: 0 };
      p.events += 1;
      if (e.hashes[0] !== undefined && !p.firsts.includes(e.hashes[0])) p.firsts.push(e.hashes[0]);
      parents.set(e.parent, p);
    }
    const newOnes: string[] = [];
    for (const h of e.hashes) {
      if (c.R.some((r) => r.h === h)) {
        c.hits += 1;
        continue;
      }
      if (sources.some((s) => s !== e.source && holds(s, h))) duplicateStores += 1;
      newOnes.push(h);
      c.newStores += 1;
      c.R.push({ h, ts: e.ts });
      c.peak = Math.max(c.peak, c.R.length);
      const g = c.G.findIndex((x) => x.h === h);
      if (g >= 0) {
        c.distances.push(c.G.length - 1 - g);
        if (e.ts - c.G[g]!.at <= thrashWindow) c.thrash += 1;
        c.G.splice(g, 1);
      }
    }
    // The best other source's leading run of the new stores.
    let best = 0;
    for (const s of sources) {
      if (s === e.source) continue;
      let run = 0;
      while (run < newOnes.length && holds(s, newOnes[run]!)) run += 1;
      best = Math.max(best, run);
    }
    regretBlocks += best;
    regretTokens += best * e.blockSize;
  }
  const all = new Set(cells.flatMap((c) => c.R.map((r) => r.h)));
  let sharedNow = 0;
  let duplicateNow = 0;
  for (const h of all) {
    const n = sources.filter((s) => holds(s, h)).length;
    if (n >= 2) sharedNow += 1;
    duplicateNow += n - 1;
  }
  const overlap = new Map<string, number>();
  for (let i = 0; i < sources.length; i++) {
    for (let j = i + 1; j < sources.length; j++) {
      let n = 0;
      for (const h of all) if (holds(sources[i]!, h) && holds(sources[j]!, h)) n += 1;
      overlap.set(`${sources[i]}\u0000${sources[j]}`, n);
    }
  }
  const hot = [...parents]
    .map(([hash, p]) => ({ hash, fanOut: p.firsts.length, storeEvents: p.events }))
    .sort((a, b) =>
      a.fanOut !== b.fanOut
        ? b.fanOut - a.fanOut
        : a.storeEvents !== b.storeEvents
          ? b.storeEvents - a.storeEvents
          : a.hash < b.hash
            ? -1
            : a.hash > b.hash
              ? 1
              : 0,
    );
  for (const c of cells) c.resident = c.R.length;
  return {
    storedBlocks,
    removedBlocks,
    cells: cells.map(({ R: _r, G: _g, ...rest }) => rest),
    lifetimes,
    duplicateStores,
    regretBlocks,
    regretTokens,
    sharedNow,
    duplicateNow,
    overlap,
    hot,
    sources,
  };
}

/** Nearest rank: sorted[ceil(p n) - 1]. */
export function nearestRank(samples: number[], p: number): number | null {
  if (samples.length === 0) return null;
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.ceil(p * s.length) - 1]!;
}

/** #{d < k}. */
export const extraHits = (distances: number[], k: number): number =>
  distances.filter((d) => d < k).length;

// The Insights' verdict: a few plain sentences drawn from the analysis report, each one carried
// by a number in it. Nothing is said that the figures do not show. Pure.

import type { AnalysisReport, WhatIfReport } from '../../shared/analysis-report';
import { formatDuration, formatInt, formatPercent } from './format';

/** The what-if row whose cache re-stored the most, if any re-stored at all. */
export function worstWhatIf(r: AnalysisReport): WhatIfReport | null {
  let worst: WhatIfReport | null = null;
  for (const w of r.whatIf)
    if (w.restores > 0 && (!worst || w.restores > worst.restores)) worst = w;
  return worst;
}

/**
 * Whether a (source, medium) without re-stores can be called big enough: it evicted, and stores
 * went on for a thrash window after its first eviction, so a block evicted early had the time
 * the thrash count gives it to come back. Before that, no re-store is no evidence.
 */
export function restoresSettled(w: WhatIfReport, thrashWindowS: number): boolean {
  return w.storesAfterEvictionS !== null && w.storesAfterEvictionS >= thrashWindowS;
}

/** What the verdict says where nothing was re-stored: big enough only once the data can show it. */
function noRestoreLine(r: AnalysisReport, label: (source: string) => string): string {
  const t = r.totals;
  const stores = `${formatInt(t.newStores)} new stores`;
  const rows = r.whatIf.filter((w) => w.newStores > 0);
  const open = rows.filter((w) => !restoresSettled(w, r.thrashWindowS));
  if (rows.length > 0 && open.length === 0) {
    return (
      `No block was stored again after its eviction (${stores}, ${formatInt(t.removedBlocks)} ` +
      `blocks removed): at this load the cache is big enough.`
    );
  }
  // A restart or a clear empties R and G: the wait for re-stores starts again at the next eviction.
  const emptied = r.input.resets + r.input.clears > 0;
  if (rows.every((w) => w.storesAfterEvictionS === null)) {
    if (emptied && t.removedBlocks > 0) {
      return (
        `No block has been evicted since the cache was last emptied by a restart or a clear ` +
        `(${stores}, ${formatInt(t.removedBlocks)} blocks removed before it): whether it is big ` +
        `enough is not known yet.`
      );
    }
    if (t.removedBlocks > 0) {
      // Joined mid-stream: what it removed had been stored before any store of it was seen.
      return (
        `None of the blocks seen stored has been evicted yet (${stores}; the ` +
        `${formatInt(t.removedBlocks)} blocks removed had been stored before they were seen): ` +
        `whether the cache is big enough is not known yet.`
      );
    }
    return (
      `No block has been evicted yet (${stores}): the cache has not filled, so whether it is ` +
      `big enough is not known yet.`
    );
  }
  // The weakest evidence names the cache: one that has not evicted, else the shortest wait.
  const [first] = [...open].sort(
    (a, b) => (a.storesAfterEvictionS ?? -1) - (b.storesAfterEvictionS ?? -1),
  );
  const where = first ? `${label(first.source)}'s ${first.medium} cache` : 'the cache';
  const since = first?.storesAfterEvictionS;
  const shown =
    since == null
      ? `${where} has evicted none of the blocks it was seen storing${emptied ? ' since its last restart or clear' : ''}`
      : `${where} stored for only ${formatDuration(since)} after its first eviction`;
  return (
    `No evicted block was stored again yet (${stores}), but ${shown}: whether it is big enough ` +
    `is not known until it has stored for ${formatInt(r.thrashWindowS)} s past an eviction ` +
    `(the thrash window).`
  );
}

/** The verdict's sentences; `label` names a source for the screen. */
export function insightsVerdict(r: AnalysisReport, label: (source: string) => string): string[] {
  const t = r.totals;
  if (t.newStores === 0) return ['No block has been stored yet: nothing to judge.'];
  const out: string[] = [];
  const lost = r.input.lostBatches;
  if (lost > 0) {
    // Said first: every sentence below is drawn from a stream with holes in it.
    out.push(
      `${formatInt(lost)} ${lost === 1 ? 'batch was' : 'batches were'} lost (gaps in the stream ` +
        'that no replay filled): their stores and evictions are missing from every figure below, and ' +
        'blocks evicted in them still count as resident.',
    );
  }
  const worst = worstWhatIf(r);
  if (!worst) {
    out.push(noRestoreLine(r, label));
  } else {
    const where = `${label(worst.source)}'s ${worst.medium} cache`;
    const thrashShare = worst.thrashRestores / worst.restores;
    const within = `${formatPercent(worst.thrashRestores, worst.restores)} within ${formatInt(r.thrashWindowS)} s of their eviction`;
    out.push(
      thrashShare >= 0.25
        ? `${where} thrashes: ${formatInt(worst.restores)} re-stores, ${within}.`
        : `${where} re-stores evicted blocks (${formatInt(worst.restores)} re-stores), but only ${within}: little thrash.`,
    );
    const quarter = worst.points.find((p) => p.extraFraction === 0.25);
    if (quarter && quarter.extraHits > 0) {
      out.push(
        `With 25% more ${worst.medium} blocks (${formatInt(quarter.extraBlocks)}) about ` +
          `${formatInt(quarter.extraHits)} of them would have been hits ` +
          `(${formatPercent(quarter.extraHits, worst.newStores)} of its new stores).`,
      );
    } else if (quarter) {
      // The largest point: 200% more, three times the capacity. A re-store it misses came back
      // after at least that many other blocks were evicted (its ghost distance), whatever the time.
      const most = worst.points.find((p) => p.extraFraction === 2);
      if (most) {
        const blocks = `200% more ${worst.medium} blocks (${formatInt(most.extraBlocks)})`;
        out.push(
          most.extraHits > 0
            ? `25% more ${worst.medium} blocks would not have kept them; ${blocks} would have kept ${formatInt(most.extraHits)}.`
            : `Even ${blocks} would not have kept them: each came back only after at least that many other blocks were evicted.`,
        );
      }
    }
  }
  if (r.sources.length >= 2) {
    const dup = r.crossSource.duplicateStores;
    out.push(
      dup > 0
        ? `${formatPercent(dup, t.newStores)} of new stores were already cached on another source ` +
            `(${formatInt(r.crossSource.duplicateBlocksNow)} duplicate blocks held now).`
        : 'No source stored a block that another source held at that moment.',
    );
  }
  if (t.hitRatio !== null) {
    out.push(
      `Announced hit ratio ${formatPercent(t.announcedHits, t.announcedHits + t.newStores)} ` +
        `(${formatInt(t.announcedHits)} re-announced blocks).`,
    );
  }
  return out;
}

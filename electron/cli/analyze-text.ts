// The readable form of `kvscope analyze`: a few plain-text tables, numbers right-aligned.

import {
  KV_CACHE_GROUPS_TRACKED,
  MAX_ANALYSED_SOURCES,
  MAX_REPORT_SOURCES,
  type AnalysisReport,
  type WhatIfReport,
} from '../../shared/analysis-report';
import type { FileLinesNotApplied } from '../analysis/analyze-json';

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
/** n and its noun, singular for one. */
const count = (n: number, one: string, many = `${one}s`): string =>
  `${int(n)} ${n === 1 ? one : many}`;
const pct = (part: number, whole: number): string =>
  whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '-';
/** Three significant digits below 100 s, as the screens show them: "1.49 s", "10.6 s". */
const secs = (s: number | null): string =>
  s === null ? '-' : s < 100 ? `${s.toPrecision(3)} s` : `${s.toFixed(0)} s`;

/** The widest a name is shown in a table (a source's or a medium's from a file can be thousands of characters). */
const MAX_NAME = 48;

/**
 * A name cut to max in its middle: its start and its end stay, and the end is where two names
 * alike tell apart (the id a shared name carries: "vllm (8acbf317)"). --json has it whole. Hashes
 * are never cut: they are copied from here.
 */
function cutName(text: string, max = MAX_NAME): string {
  if (text.length <= max) return text;
  const tail = Math.floor((max - 1) / 2);
  return `${text.slice(0, max - 1 - tail)}…${text.slice(text.length - tail)}`;
}

/** Columns padded to their widest cell; columns before rightFrom left-aligned, the rest right-aligned. */
export function table(head: string[], rows: string[][], rightFrom = 1): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i < rightFrom ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(head), rule, ...rows.map(line)].map((l) => `  ${l}`).join('\n');
}

/** The line over a list cut to its first rows: the totals above count every one. */
function listedOf(listed: number, of: number, what: string): string {
  return `The first ${int(listed)} of ${int(of)} ${what} (a report lists at most ${int(MAX_REPORT_SOURCES)}; the totals count them all)`;
}

function whatIfRow(w: WhatIfReport): string[] {
  return [
    `${cutName(w.source, 24)} ${cutName(w.medium, 23)}`,
    `${int(w.capacityBlocks)} (${w.capacityBasis === 'engine' ? 'engine' : 'peak'})`,
    int(w.restores),
    ...w.points.map((p) => `${int(p.extraHits)} (${pct(p.extraHits, w.newStores)})`),
    w.estimate ? 'estimate' : 'exact',
  ];
}

/**
 * The KV cache groups of the sources that publish more than one (a hybrid model), and what that
 * does to figures counted by hash; nothing when each source has one group and none was picked.
 */
function groupsText(r: AnalysisReport): string[] {
  const multi = r.sources.filter((s) => s.kvCacheGroupCount > 1);
  if (multi.length === 0 && r.group === null) return [];
  const rows = r.sources.flatMap((s) =>
    s.kvCacheGroups.map((g) => [
      cutName(s.source),
      String(g.group),
      [g.kind ?? '-', g.slidingWindow === null ? '' : ` ${int(g.slidingWindow)}`].join(''),
      int(g.storedBlocks),
      int(g.removedBlocks),
      r.group === null ? 'yes' : g.group === r.group ? 'yes' : 'no',
    ]),
  );
  const unlisted = r.sources.filter(
    (s) => s.kvCacheGroupCount > s.kvCacheGroups.length || s.kvCacheGroupsCapped,
  );
  const out = [
    '',
    'KV cache groups (vLLM publishes each block once per group: a hybrid model has a group per attention kind)',
    table(['source', 'group', 'kind', 'stored', 'removed', 'analysed'], rows, 3),
  ];
  for (const s of unlisted) {
    const more = int(s.kvCacheGroupCount - s.kvCacheGroups.length);
    out.push(
      `  ${cutName(s.source)}: ${s.kvCacheGroupsCapped ? `${more} more groups, and more past the ${KV_CACHE_GROUPS_TRACKED} counted` : `${more} more groups`}`,
    );
  }
  if (r.group === null)
    out.push(
      '  The groups are counted together, by hash: a hash is one block however many groups hold it,',
      '  its store into a second group reads as a hit, and its removal from one group ends it.',
      '  --group N analyses one group alone.',
    );
  return out;
}

/** The whole report as text, for a terminal. */
export function analyzeText(
  r: AnalysisReport,
  what: {
    file: string;
    kind: 'session' | 'capture';
    removed?: readonly string[];
    read?: FileLinesNotApplied;
  },
): string {
  const t = r.totals;
  const out: string[] = [];
  const n = r.input;
  out.push(
    `KV cache analysis of ${what.file} (${what.kind}): ${int(n.events)} events in ${int(n.batches)} batches, ${int(r.sourceCount)} source${r.sourceCount === 1 ? '' : 's'}`,
  );
  const removed = what.removed ?? [];
  if (removed.length > 0) {
    // As the screens say it: their figures left every total when they were removed.
    out.push(`Removed during the recording, left out of every figure: ${removed.join(', ')}`);
  }
  if (r.group !== null)
    out.push(
      `KV cache group ${r.group} alone (--group): the other groups' stores and removals are left out of every figure`,
    );
  if (r.batchesPastSourceLimit > 0)
    out.push(
      `More than ${int(MAX_ANALYSED_SOURCES)} sources at once: ${count(r.batchesPastSourceLimit, 'batch', 'batches')} of the sources past them are left out of every figure`,
    );
  if (r.estimate) out.push('Some figures are sampled estimates (marked below).');
  out.push('', 'Totals');
  out.push(
    table(
      ['figure', 'value'],
      [
        ['stored blocks', int(t.storedBlocks)],
        ['removed blocks', int(t.removedBlocks)],
        ['resident blocks now', int(t.residentBlocks)],
        ['new stores', int(t.newStores)],
        [
          'announced hits',
          t.hitRatio === null
            ? `${int(t.announcedHits)} (none: the engine re-announces hits with kv_cache_report_mode="full")`
            : `${int(t.announcedHits)} (hit ratio ${pct(t.announcedHits, t.announcedHits + t.newStores)})`,
        ],
        ['re-stores', `${int(t.restores)} (${pct(t.restores, t.newStores)} of new stores)`],
        [
          `thrash (re-stored within ${r.thrashWindowS} s)`,
          t.restores === 0
            ? `${int(t.thrashRestores)} (no re-store)`
            : `${int(t.thrashRestores)} (${pct(t.thrashRestores, t.restores)} of re-stores)`,
        ],
      ],
      2,
    ),
  );
  out.push('', 'Per source');
  if (r.sources.length < r.sourceCount)
    out.push(listedOf(r.sources.length, r.sourceCount, 'sources'));
  out.push(
    table(
      [
        'source',
        'dp',
        'stored',
        'new',
        'hits',
        're-stores',
        'thrash',
        'dup stores',
        'regret',
        'resident',
      ],
      r.sources.map((s) => [
        cutName(s.source),
        s.dpRank === null ? '-' : String(s.dpRank),
        int(s.storedBlocks),
        int(s.newStores),
        int(s.announcedHits),
        int(s.restores),
        int(s.thrashRestores),
        int(s.duplicateStores),
        int(s.routingRegretBlocks),
        int(s.residentBlocks),
      ]),
    ),
  );
  out.push(...groupsText(r));
  out.push(
    '',
    'What-if capacity: extra hits with more blocks (an LRU ghost-list estimate; % of new stores)',
  );
  if (r.whatIf.length < r.whatIfCount)
    out.push(listedOf(r.whatIf.length, r.whatIfCount, 'source media'));
  // As the Insights say: a peak that stands in for the capacity counts lost evictions as resident.
  if (r.input.lostBatches > 0 && r.whatIf.some((w) => w.capacityBasis !== 'engine'))
    out.push(
      `A "peak" capacity counts the blocks evicted in the ${count(r.input.lostBatches, 'batch', 'batches')} lost as still resident: it may be past the real capacity.`,
    );
  out.push(
    table(
      ['source medium', 'capacity', 're-stores', '+10%', '+25%', '+50%', '+100%', '+200%', ''],
      r.whatIf.map(whatIfRow),
    ),
  );
  out.push('', 'Lifetimes (removal - the store that made the block resident)');
  out.push(
    table(
      ['medium', 'count', 'p50', 'p90', 'p99', ''],
      r.lifetimes.map((l) => [
        cutName(l.medium),
        int(l.count),
        secs(l.p50S),
        secs(l.p90S),
        secs(l.p99S),
        l.estimate ? 'sketch' : 'exact',
      ]),
    ),
  );
  for (const l of r.lifetimes) {
    const cells = l.histogram.map(
      (b) => `${b.upperS === null ? '>=3600' : `<${b.upperS}`}: ${int(b.count)}`,
    );
    out.push(`  ${cutName(l.medium)} histogram (s): ${cells.join(', ')}`);
  }
  const x = r.crossSource;
  out.push('', "The router's view (any medium)");
  out.push(
    table(
      ['figure', 'value'],
      [
        [
          'duplicate stores',
          `${int(x.duplicateStores)} (${pct(x.duplicateStores, t.newStores)} of new stores)`,
        ],
        [
          'routing regret',
          `${int(x.routingRegretBlocks)} blocks, ${int(x.routingRegretTokens)} tokens`,
        ],
        ['shared blocks now', int(x.sharedBlocksNow)],
        ['duplicate blocks now', int(x.duplicateBlocksNow)],
      ],
      2,
    ),
  );
  if (x.overlap.length > 0) {
    out.push(
      table(
        ['pair', 'blocks held by both'],
        // Each name cut to half the cell, so that both show.
        x.overlap.map((c) => [
          `${cutName(c.sourceA, 22)} / ${cutName(c.sourceB, 23)}`,
          int(c.blocks),
        ]),
      ),
    );
  }
  out.push('', `Hot prefixes${r.hotPrefixesExact ? '' : ' (pruned table: counts may be low)'}`);
  out.push(
    table(
      ['parent hash', 'fan-out', 'events', 'depth', 'tokens'],
      r.hotPrefixes.map((h) => [
        h.hash,
        int(h.fanOut),
        int(h.storeEvents),
        h.depthBlocks === null ? '-' : int(h.depthBlocks),
        h.depthTokens === null ? '-' : int(h.depthTokens),
      ]),
    ),
  );
  if (n.backwardRemovals > 0)
    out.push(
      '',
      `Clock: ${int(n.backwardRemovals)} removal${n.backwardRemovals === 1 ? '' : 's'} came before the store's ts (the clock stepped back): no lifetime taken`,
    );
  if (n.badTsEvents + n.gaps + n.undecoded + n.eventErrors > 0) {
    // A file's events with a bad ts are among its event errors (the reader makes them so); only
    // an event that reached the analysis with one is counted apart, and only then said.
    const badTs = n.badTsEvents > 0 ? `, ${int(n.badTsEvents)} more with a bad ts (skipped)` : '';
    out.push(
      '',
      `Input: ${count(n.gaps, 'gap')} (${count(n.lostBatches, 'batch', 'batches')} lost), ${int(n.undecoded)} undecoded, ${count(n.eventErrors, 'event error')} (a bad ts or bad fields: see the problems)${badTs}`,
    );
  }
  const read = what.read;
  if (read && read.skippedLines + read.duplicateLines > 0) {
    out.push(
      '',
      `Lines not applied: ${count(read.skippedLines, 'line')} skipped (unreadable), ${count(read.duplicateLines, 'duplicate line')} (a batch read before)`,
    );
  }
  return `${out.join('\n')}\n`;
}

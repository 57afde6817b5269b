// Series (from getSeries) → rows and line definitions for recharts, and series visibility.

import type { Marker, Series } from '../../shared/api-types';
import { beforeSource } from '../../shared/series-points';
import { compareMedia, mediumColorIndex } from './medium-colors';
import { sourceLabel } from './source-names';
import type { SourceNames } from './source-names';

export interface LineDef {
  /** dataKey in the rows. */
  key: string;
  label: string;
  /** Index into the chart palette (totals) or the lighter per-source palette. */
  color: number;
  /** Totals are drawn bold and solid; per-source lines thin, under them, in the source's color. */
  total: boolean;
  /** Per-source lines: stored dashed, removed dotted (the color tells the source). */
  dash?: 'dashed' | 'dotted';
  /** Legend group (a source's name, or "all"), shown once before its entries. */
  group?: string;
  /** The entry's text inside its group; `label` stays the full name (tooltip, screen reader). */
  short?: string;
}

export type ChartRow = { t: number } & Record<string, number>;

/** Rate rows: total stored/removed per second, and per source when there are several. */
export function rateRows(series: Series): ChartRow[] {
  const perSource = series.sources.length > 1;
  return series.points.map((p) => {
    const row: ChartRow = { t: p.t, stored: p.stored, removed: p.removed };
    if (perSource) {
      series.sources.forEach((_, i) => {
        // A source added later has no value before it came (the tooltip leaves it out).
        if (beforeSource(series, p.t, i)) return;
        row[`stored.${i}`] = p.storedBy[i] ?? 0;
        row[`removed.${i}`] = p.removedBy[i] ?? 0;
      });
    }
    return row;
  });
}

/** The lines of the rate chart, in legend order; sources by name when known. */
export function rateLines(series: Series, names: SourceNames = new Map()): LineDef[] {
  if (series.sources.length <= 1) {
    return [
      { key: 'stored', label: 'stored/s (all)', color: 0, total: true },
      { key: 'removed', label: 'removed/s (all)', color: 1, total: true },
    ];
  }
  const lines: LineDef[] = [
    {
      key: 'stored',
      label: 'stored/s (all)',
      color: 0,
      total: true,
      group: 'all',
      short: 'stored/s',
    },
    {
      key: 'removed',
      label: 'removed/s (all)',
      color: 1,
      total: true,
      group: 'all',
      short: 'removed/s',
    },
  ];
  series.sources.forEach((s, i) => {
    const group = sourceLabel(names, s);
    const common = { color: i, total: false, group };
    lines.push({
      ...common,
      key: `stored.${i}`,
      label: `stored/s ${group}`,
      dash: 'dashed',
      short: 'stored',
    });
    lines.push({
      ...common,
      key: `removed.${i}`,
      label: `removed/s ${group}`,
      dash: 'dotted',
      short: 'removed',
    });
  });
  return lines;
}

/** Drawing order: per-source lines first so the totals stay on top. */
export function drawOrder(lines: readonly LineDef[]): LineDef[] {
  return [...lines.filter((l) => !l.total), ...lines.filter((l) => l.total)];
}

/** Resident-block rows: one column per medium. */
export function residentRows(series: Series): ChartRow[] {
  return series.points.map((p) => {
    const row: ChartRow = { t: p.t };
    series.media.forEach((_, i) => {
      row[`resident.${i}`] = p.resident[i] ?? 0;
    });
    return row;
  });
}

/**
 * The lines of the residency chart, one per medium, each in its medium's own colour, fastest tier
 * first (the service lists media as they first came, which differs from run to run).
 */
export function residentLines(series: Series): LineDef[] {
  return series.media
    .map((m, i) => ({
      key: `resident.${i}`,
      label: `resident ${m || 'unknown medium'}`,
      color: mediumColorIndex(m),
      total: true,
      medium: m,
    }))
    .sort((a, b) => compareMedia(a.medium, b.medium))
    .map(({ medium: _, ...line }) => line);
}

/** Resident-block rows per source: one column per source, and their sum when there are several. */
export function residentSourceRows(series: Series): ChartRow[] {
  const several = series.sources.length > 1;
  return series.points.map((p) => {
    const row: ChartRow = { t: p.t };
    series.sources.forEach((_, i) => {
      if (!beforeSource(series, p.t, i)) row[`residentBy.${i}`] = p.residentBy[i] ?? 0;
    });
    if (several) row.residentAll = p.residentBy.reduce((a, b) => a + b, 0);
    return row;
  });
}

/** The lines of the residency-by-source chart: each source in its colour, the sum bold on top. */
export function residentSourceLines(series: Series, names: SourceNames = new Map()): LineDef[] {
  const several = series.sources.length > 1;
  const lines: LineDef[] = series.sources.map((s, i) => ({
    key: `residentBy.${i}`,
    label: `resident ${sourceLabel(names, s)}`,
    short: sourceLabel(names, s),
    color: i,
    total: !several,
  }));
  if (several)
    lines.unshift({
      key: 'residentAll',
      label: 'resident (all)',
      short: 'all',
      color: 0,
      total: true,
    });
  return lines;
}

/**
 * Draw order of markers at one time (the last drawn is on top): a restart comes with the gap of
 * the new engine's first batches in the same second, and the restart is what happened.
 */
const ON_TOP: Record<Marker['kind'], number> = { clear: 0, clock: 1, gap: 2, reset: 3 };

const byTime = (a: Marker, b: Marker): number => a.t - b.t || ON_TOP[a.kind] - ON_TOP[b.kind];

/** Every marker inside the plotted time span, newest last (the legend counts them all). */
export function visibleMarkers(series: Series): Marker[] {
  const first = series.points[0];
  const last = series.points[series.points.length - 1];
  if (!first || !last) return [];
  const t1 = last.t + series.binSec;
  return series.markers.filter((m) => m.t >= first.t && m.t <= t1).sort(byTime);
}

/**
 * The markers a chart draws as lines, at most `max`: every gap, restart and clock outlier first
 * (rare, and what an operator looks for), then the newest clears. Capped by time alone, an engine
 * clearing its cache every second pushed a gap out of a five-minute chart within a minute.
 */
export function drawnMarkers(markers: readonly Marker[], max = 60): Marker[] {
  if (markers.length <= max) return [...markers];
  const rare = markers.filter((m) => m.kind !== 'clear');
  const kept = rare.slice(Math.max(0, rare.length - max));
  const clears = markers.filter((m) => m.kind === 'clear');
  const room = max - kept.length;
  if (room > 0) kept.push(...clears.slice(clears.length - room));
  return kept.sort(byTime);
}

/** Shows a hidden series or hides a shown one; returns a new set. */
export function toggleHidden(hidden: ReadonlySet<string>, key: string): Set<string> {
  const next = new Set(hidden);
  if (next.has(key)) next.delete(key);
  else next.add(key);
  return next;
}

/** Drops hidden keys that no longer name a line (sources come and go). */
export function pruneHidden(hidden: ReadonlySet<string>, lines: LineDef[]): Set<string> {
  const keys = new Set(lines.map((l) => l.key));
  return new Set([...hidden].filter((k) => keys.has(k)));
}

/**
 * What an empty chart says: nothing connected, waiting for events, loading, or nothing in the
 * chosen range. `sources`: how many the live view has (a live view with none waits for nothing).
 */
export function chartEmptyText(
  events: number | null,
  loaded: boolean,
  session: boolean,
  sources = 1,
): string {
  if (!events) {
    if (session) return 'This session holds no events.';
    return sources === 0
      ? 'Nothing is connected: add a connection (or the demo engine) under Connections.'
      : 'Waiting for the first events…';
  }
  if (!loaded) return 'Loading…';
  return 'No events in this time range.';
}

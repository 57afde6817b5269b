// deploy/grafana/kvscope.json: a Grafana dashboard whose every expression names metrics that
// /metrics exports (rendered here with every family populated, prom-client's process metrics too).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KvMetricsRegistry } from '../../electron/metrics/kv-registry';
import { KVSCOPE_METRIC_NAMES, LIFETIME_BOUNDS_S } from '../../electron/metrics/metric-names';
import type { MetricsSnapshot } from '../../electron/metrics/metrics-snapshot';
import { parsePromText } from '../../electron/metrics/prom-text';

const DASHBOARD = path.join(__dirname, '../../deploy/grafana/kvscope.json');

interface Target {
  refId?: string;
  expr?: string;
}
interface Panel {
  id?: number;
  type?: string;
  title?: string;
  gridPos?: { h: number; w: number; x: number; y: number };
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name?: string;
  type?: string;
  query?: string | { query?: string };
}
interface Dashboard {
  uid?: string;
  title?: string;
  schemaVersion?: number;
  panels?: Panel[];
  templating?: { list?: Variable[] };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;

/** Every family populated: one source on two media, its engine figures and the analysis. */
const FULL: MetricsSnapshot = {
  at: 1_000_000,
  sources: [
    {
      id: 's',
      name: 'engine-a',
      endpoint: 'tcp://127.0.0.1:5557',
      dpRank: 0,
      state: 'connected',
      counters: {
        messages: 10,
        events: 20,
        bytes: 1000,
        gaps: 1,
        recovered: 2,
        lost: 3,
        duplicates: 4,
        resets: 5,
        undecoded: 6,
        eventErrors: 7,
        oversized: 0,
        replayRejected: 0,
      },
      lastMessageAt: 999,
      media: [
        { medium: 'GPU', stored: 30, removed: 10, resident: 20 },
        { medium: 'CPU', stored: 5, removed: 0, resident: 5 },
      ],
    },
  ],
  engines: [
    {
      id: 's',
      up: true,
      figures: {
        numGpuBlocks: 2048,
        blockSize: 16,
        kvCacheUsage: 0.5,
        prefixCacheQueries: 100,
        prefixCacheHits: 40,
        preemptions: 1,
        modelName: 'm',
      },
    },
  ],
  analysis: {
    media: [
      {
        source: 's',
        medium: 'GPU',
        newStores: 12,
        restores: 3,
        thrashRestores: 1,
        announcedHits: 4,
      },
    ],
    duplicateStores: [{ source: 's', count: 2 }],
    lifetimes: [
      {
        medium: 'GPU',
        counts: [1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        atBounds: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        sumSec: 4000.5,
      },
    ],
  },
  memory: [
    { part: 'hash_ids', bytes: 1 << 20 },
    { part: 'ghost_lists', bytes: 2 << 20 },
  ],
};

async function exportedNames(): Promise<Set<string>> {
  const text = await new KvMetricsRegistry({ processMetrics: true }).render(FULL);
  return new Set(parsePromText(text).samples.map((s) => s.name));
}

const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on']);

/** The metric names a PromQL expression selects (functions, labels and strings left out). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values and regexes
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // range selectors
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\$\w+/g, '');
  const names: string[] = [];
  for (const m of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?/g)) {
    if (m[1] !== undefined) continue; // a function call
    if (PROMQL_WORDS.has(m[0])) continue;
    names.push(m[0]);
  }
  return names;
}

function allPanels(panels: Panel[] = []): Panel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels)]);
}

describe('the Grafana dashboard', () => {
  it('is a dashboard Grafana imports: uid, title, schema version, laid-out panels with targets', () => {
    expect(dashboard.uid).toBe('kvscope');
    expect(dashboard.title).toMatch(/KV Scope/);
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const panels = allPanels(dashboard.panels);
    expect(panels.length).toBeGreaterThan(10);
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) {
      expect(p.type, `panel ${p.title}`).toMatch(/^(row|stat|timeseries)$/);
      const g = p.gridPos;
      expect(g && g.x >= 0 && g.w > 0 && g.x + g.w <= 24 && g.h > 0, `gridPos of ${p.title}`).toBe(
        true,
      );
      if (p.type === 'row') continue;
      expect(p.targets?.length, `targets of ${p.title}`).toBeGreaterThan(0);
      for (const t of p.targets ?? []) expect(t.refId && t.expr, `${p.title}`).toBeTruthy();
    }
  });

  it('names in every expression only metrics that /metrics exports', async () => {
    const exported = await exportedNames();
    const exprs = allPanels(dashboard.panels).flatMap((p) =>
      (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr ?? '' })),
    );
    for (const v of dashboard.templating?.list ?? []) {
      if (v.type !== 'query') continue;
      const q = typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
      // label_values(metric{...}, label): the metric is the first argument.
      const metric = /^label_values\((.*),\s*\w+\)$/.exec(q)?.[1] ?? q;
      exprs.push({ where: `variable ${v.name}`, expr: metric });
    }
    let checked = 0;
    for (const { where, expr } of exprs) {
      const names = metricNames(expr);
      expect(names.length, `${where}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) {
        expect(exported.has(name), `${where} names ${name}, which /metrics does not export`).toBe(
          true,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('reads each KV Scope metric somewhere, so none is exported for nobody', () => {
    const text = JSON.stringify(dashboard);
    const unused = KVSCOPE_METRIC_NAMES.filter((n) => !text.includes(n));
    expect(unused).toEqual(['kvscope_engine_block_size_tokens']);
  });

  it('finds the metric names of an expression and nothing else (the checker itself)', () => {
    expect(
      metricNames(
        'histogram_quantile(0.9, sum by (le, medium) (rate(kvscope_block_lifetime_seconds_bucket{source=~"$source"}[5m])))',
      ),
    ).toEqual(['kvscope_block_lifetime_seconds_bucket']);
    expect(
      metricNames('sum(a_total{x="y z"}) / count by (instance) (b) and on(instance) c'),
    ).toEqual(['a_total', 'b', 'c']);
    expect(LIFETIME_BOUNDS_S).toHaveLength(11);
  });
});

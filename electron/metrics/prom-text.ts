// Reading Prometheus text (an engine's /metrics, or our own in tests) with
// parse-prometheus-text-format, as flat samples. That library folds a labelled histogram or
// summary into one unlabelled entry, so their TYPE lines are set aside first: their
// _bucket/_sum/_count samples then come out one by one, labels and all.

import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample line: a series name, its labels and its value. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition: every sample, and each family's declared type (lowercase). */
export interface PromText {
  samples: PromSample[];
  types: Map<string, string>;
}

/** The text was not Prometheus exposition text. */
export class PromTextError extends Error {}

const FOLDED_TYPE = /^#\s*TYPE\s+(\S+)\s+(histogram|summary)\s*$/i;
const ANY_TYPE = /^#\s*TYPE\s+(\S+)\s+(\S+)\s*$/;

/** Parses Prometheus text format 0.0.4; throws PromTextError naming the first bad line. */
export function parsePromText(text: string): PromText {
  // The library reads most of an HTML page as odd samples: an error page is told apart first.
  if (/^\s*</.test(text))
    throw new PromTextError('not Prometheus text: the answer is an HTML page');
  const types = new Map<string, string>();
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const folded = FOLDED_TYPE.exec(line.trim());
    if (folded) {
      types.set(folded[1] as string, (folded[2] as string).toLowerCase());
      continue;
    }
    const typed = ANY_TYPE.exec(line.trim());
    if (typed) types.set(typed[1] as string, (typed[2] as string).toLowerCase());
    kept.push(line);
  }
  let families;
  try {
    // The library drops a last sample that has no newline after it.
    families = parsePrometheusTextFormat(`${kept.join('\n')}\n`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new PromTextError(`not Prometheus text: ${message.slice(0, 160)}`);
  }
  const samples: PromSample[] = [];
  for (const family of families) {
    for (const m of family.metrics) {
      if (m.value === undefined) continue;
      samples.push({ name: family.name, labels: m.labels ?? {}, value: promNumber(m.value) });
    }
  }
  return { samples, types };
}

/** A sample value as a number: Prometheus writes +Inf, -Inf and NaN by name. */
export function promNumber(text: string): number {
  switch (text) {
    case '+Inf':
    case 'Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
    default:
      return Number(text);
  }
}

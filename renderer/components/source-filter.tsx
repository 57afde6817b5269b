import { sourceOptions } from '../lib/source-names';
import type { SourceNames } from '../lib/source-names';

interface Props {
  /** The chosen source id; '' for all sources. */
  value: string;
  onChange(source: string): void;
  names: SourceNames;
  /** The ids of the sources to offer. */
  ids: readonly string[];
  testId: string;
}

/** A "Source" filter: all sources, or one by its name (its id when a name is used twice). */
export function SourceFilter({ value, onChange, names, ids, testId }: Props) {
  return (
    <label className="field">
      <span>Source</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        <option value="">all sources</option>
        {sourceOptions(names, ids).map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </select>
    </label>
  );
}

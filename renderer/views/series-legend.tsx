import type { ChartColors } from '../lib/theme';
import { lineColor } from '../lib/theme';
import type { LineDef } from '../lib/chart-rows';

interface Props {
  lines: LineDef[];
  hidden: ReadonlySet<string>;
  colors: ChartColors;
  onToggle(key: string): void;
}

/** A legend whose entries show or hide their series on click. */
export function SeriesLegend({ lines, hidden, colors, onToggle }: Props) {
  return (
    <ul className="legend" aria-label="Series (click to show or hide)">
      {lines.map((l, i) => {
        const off = hidden.has(l.key);
        const groupStart = l.group != null && l.group !== lines[i - 1]?.group;
        return (
          <li key={l.key} className={groupStart && i > 0 ? 'legend-new-group' : undefined}>
            {groupStart && (
              <span className="legend-group ellipsis" title={l.group}>
                {l.group}:
              </span>
            )}
            <button
              type="button"
              className={`legend-item ${off ? 'legend-off' : ''}`}
              aria-pressed={!off}
              aria-label={l.label}
              title={off ? `Show ${l.label}` : `Hide ${l.label}`}
              onClick={() => onToggle(l.key)}
            >
              <span
                className={`swatch ${l.dash ? `swatch-${l.dash}` : ''}`}
                style={{ borderColor: lineColor(colors, l.color, !l.total) }}
                aria-hidden="true"
              />
              {/* A long name (a 5,000-character medium) is cut here; the title has it whole. */}
              <span className="legend-label ellipsis">{l.short ?? l.label}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

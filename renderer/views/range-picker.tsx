export const RANGES: { label: string; sec: number | null }[] = [
  { label: '1m', sec: 60 },
  { label: '5m', sec: 300 },
  { label: '15m', sec: 900 },
  { label: '1h', sec: 3600 },
  { label: 'all', sec: null },
];

interface Props {
  /** The range chosen; undefined while the charts show a zoomed window instead. */
  value: number | null | undefined;
  onChange(sec: number | null): void;
}

/** The chart time range: a group of toggle buttons. */
export function RangePicker({ value, onChange }: Props) {
  return (
    <div className="segmented" role="group" aria-label="Time range">
      {RANGES.map((r) => (
        <button
          key={r.label}
          type="button"
          className="seg"
          aria-pressed={r.sec === value}
          data-testid={`range-${r.label}`}
          onClick={() => onChange(r.sec)}
        >
          {r.label}
        </button>
      ))}
    </div>
  );
}

interface Props {
  value: number;
}

/** Loading progress of a file, 0..1. */
export function ProgressBar({ value }: Props) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <div className="progress" data-testid="progress">
      <div
        className="progress-track"
        role="progressbar"
        aria-label="Loading the file"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
      >
        <div className="progress-fill" style={{ width: `${pct}%` }} />
      </div>
      <span className="progress-text">Loading… {pct}%</span>
    </div>
  );
}

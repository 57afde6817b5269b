import { copyHashes } from '../state/copy-cue';

interface Props {
  /** The hashes copied (one per line). */
  hashes: readonly string[];
  label?: string;
  /** In a row that copies on Ctrl+C: out of the Tab order, so Tab does not stop at every hash. */
  inRow?: boolean;
}

/** A small button beside a hash that copies it; the copied cue says it worked. */
export function CopyButton({ hashes, label = 'Copy the hash', inRow = false }: Props) {
  return (
    <button
      type="button"
      className="copy-btn"
      title={label}
      aria-label={label}
      data-testid="copy-hash"
      tabIndex={inRow ? -1 : undefined}
      onClick={(e) => {
        // Inside a clickable row: copying is not choosing the row.
        e.stopPropagation();
        void copyHashes(hashes);
      }}
    >
      <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
        <rect
          x="5"
          y="5"
          width="9"
          height="9"
          rx="1.5"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.5"
        />
        <path
          d="M11 3.5V3a1 1 0 0 0-1-1H3a1 1 0 0 0-1 1v7a1 1 0 0 0 1 1h.5"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.5"
        />
      </svg>
    </button>
  );
}

import { ellipsizeMiddle } from '../lib/format';
import { CopyButton } from './copy-button';

interface Props {
  hash: string | null;
  /** Longest text shown before it is shortened in the middle. */
  max?: number;
  /** Show it whole and let CSS cut the end when the cell is too narrow (the title has it all). */
  fit?: boolean;
  /** A copy button beside it (default); off inside another button. */
  copy?: boolean;
}

/**
 * A block hash in monospace, shortened in the middle when long, the full value in its title, with
 * a button that copies the full value. In a table cell (`fit`) the button leaves the Tab order: the
 * row copies on Ctrl+C.
 */
export function HashText({ hash, max = 22, fit = false, copy = true }: Props) {
  if (hash == null) return <span className="muted">—</span>;
  const text = fit ? hash : ellipsizeMiddle(hash, max);
  return (
    <span className={`hash-wrap ${fit ? 'hash-wrap-fit' : ''}`}>
      <span className={`hash ${fit ? 'hash-fit' : ''}`} title={hash}>
        {text}
      </span>
      {copy && <CopyButton hashes={[hash]} inRow={fit} />}
    </span>
  );
}

import { ellipsizeMiddle } from '../lib/format';

interface Props {
  hash: string | null;
  /** Longest text shown before it is shortened in the middle. */
  max?: number;
  /** Show it whole and let CSS cut the end when the cell is too narrow (the title has it all). */
  fit?: boolean;
}

/** A block hash in monospace, shortened in the middle when long, the full value in its title. */
export function HashText({ hash, max = 22, fit = false }: Props) {
  if (hash == null) return <span className="muted">—</span>;
  if (fit) {
    return (
      <span className="hash hash-fit" title={hash}>
        {hash}
      </span>
    );
  }
  const short = ellipsizeMiddle(hash, max);
  return (
    <span className="hash" title={hash}>
      {short}
    </span>
  );
}

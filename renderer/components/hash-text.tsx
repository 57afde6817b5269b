import { ellipsizeMiddle } from '../lib/format';

interface Props {
  hash: string | null;
  /** Longest text shown before it is shortened in the middle. */
  max?: number;
}

/** A block hash in monospace, shortened in the middle when long, the full value in its title. */
export function HashText({ hash, max = 22 }: Props) {
  if (hash == null) return <span className="muted">—</span>;
  const short = ellipsizeMiddle(hash, max);
  return (
    <span className="hash" title={hash}>
      {short}
    </span>
  );
}

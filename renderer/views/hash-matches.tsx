import type { HashMatch } from '../../shared/api-types';
import { HashText } from '../components/hash-text';

interface Props {
  text: string;
  matches: HashMatch[] | null;
  onSelect(chainId: string): void;
}

/** Blocks whose hash matches the search text, and the chains through them. */
export function HashMatches({ text, matches, onSelect }: Props) {
  if (text.trim() === '' || matches == null) return null;
  if (matches.length === 0) {
    return (
      <div className="matches muted" data-testid="hash-matches">
        No block hash matches “{text}” (decimal, hex, or a prefix of either).
      </div>
    );
  }
  return (
    <div className="matches" data-testid="hash-matches">
      <span className="muted">
        {matches.length} matching block{matches.length === 1 ? '' : 's'}:
      </span>
      <ul>
        {matches.slice(0, 8).map((m) => (
          <li key={m.hash}>
            <HashText hash={m.hash} max={28} />{' '}
            <span className={m.resident ? 'ok-text' : 'muted'}>
              {m.resident ? 'resident' : 'evicted'}
            </span>
            {m.chainIds.slice(0, 4).map((c) => (
              <button
                key={c}
                type="button"
                className="link-btn"
                onClick={() => onSelect(c)}
                title={c}
              >
                chain <HashText hash={c} max={12} />
              </button>
            ))}
            {m.chainIds.length > 4 && (
              <span className="muted"> +{m.chainIds.length - 4} chains</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

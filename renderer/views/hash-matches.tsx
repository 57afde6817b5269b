import type { HashMatch } from '../../shared/api-types';
import { HashText } from '../components/hash-text';
import { plural } from '../lib/format';

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
      <span className="muted">{plural(matches.length, 'matching block')}:</span>
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
                chain <HashText hash={c} max={12} copy={false} />
              </button>
            ))}
            {m.chainIds.length > 4 && (
              <span className="muted"> +{plural(m.chainIds.length - 4, 'chain')}</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

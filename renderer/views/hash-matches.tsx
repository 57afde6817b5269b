import type { HashMatch } from '../../shared/api-types';
import { HashText } from '../components/hash-text';
import { MAX_HASH_MATCHES } from '../../shared/limits';
import { plural } from '../lib/format';

/** Matching blocks listed; the rest are counted. */
const SHOWN = 8;

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
        {matches.length >= MAX_HASH_MATCHES
          ? `${MAX_HASH_MATCHES} or more matching blocks (the first known)`
          : plural(matches.length, 'matching block')}
        {matches.length > SHOWN ? `, ${SHOWN} shown: a longer prefix narrows them` : ''}:
      </span>
      <ul>
        {matches.slice(0, SHOWN).map((m) => (
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
            {m.chainCount > 4 && (
              <span className="muted"> +{plural(m.chainCount - 4, 'chain')}</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

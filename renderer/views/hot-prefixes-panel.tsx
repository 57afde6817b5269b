import type { HotPrefix } from '../../shared/analysis-report';
import { formatInt } from '../lib/format';
import { HashText } from '../components/hash-text';

interface Props {
  prefixes: readonly HotPrefix[];
  exact: boolean;
  onOpenChain(hash: string): void;
}

/** The parents most prefixes branch off: by fan-out, then events, then the hash. */
export function HotPrefixesPanel({ prefixes, exact, onOpenChain }: Props) {
  return (
    <section className="panel insight-panel" aria-label="Hot prefixes" data-testid="hot-prefixes">
      <h3>Hot prefixes</h3>
      {!exact && (
        <p className="muted small">The table was pruned to stay bounded: counts may be low.</p>
      )}
      {prefixes.length === 0 ? (
        <p className="muted">No BlockStored event has named a parent yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table">
            <thead>
              <tr>
                <th>Parent hash</th>
                <th className="num">Fan-out</th>
                <th className="num">Events</th>
                <th className="num">Depth</th>
                <th className="num">Tokens</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {prefixes.map((p) => (
                <tr key={p.hash} data-testid="hot-prefix">
                  <td className="mono">
                    <HashText hash={p.hash} />
                  </td>
                  <td className="num">{formatInt(p.fanOut)}</td>
                  <td className="num">{formatInt(p.storeEvents)}</td>
                  <td className="num">{p.depthBlocks === null ? '—' : formatInt(p.depthBlocks)}</td>
                  <td className="num">{p.depthTokens === null ? '—' : formatInt(p.depthTokens)}</td>
                  <td>
                    <button
                      type="button"
                      className="btn btn-ghost btn-small"
                      onClick={() => onOpenChain(p.hash)}
                    >
                      Open in Chains
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

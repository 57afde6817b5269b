import type { AnalysisReport } from '../../shared/analysis-report';
import {
  ellipsizeMiddle,
  formatInt,
  formatPercent,
  heatAlpha,
  nounFor,
  plural,
} from '../lib/format';

/**
 * Characters of a source name in the heatmap's headers: a longer one is cut in the middle (ranks
 * and hosts differ at the end, so both ends stay), on one line, the full name in its tooltip.
 */
const HEADER_CHARS = 24;

interface Props {
  report: AnalysisReport;
  label: (source: string) => string;
}

/** The router's view: what the fleet stores twice, and a heatmap of pairwise overlap now. */
export function RouterPanel({ report, label }: Props) {
  const c = report.crossSource;
  const names = [...new Set(c.overlap.flatMap((o) => [o.sourceA, o.sourceB]))];
  const cell = new Map(c.overlap.map((o) => [`${o.sourceA}\u0000${o.sourceB}`, o.blocks]));
  const at = (a: string, b: string) =>
    cell.get(`${a}\u0000${b}`) ?? cell.get(`${b}\u0000${a}`) ?? 0;
  const max = Math.max(1, ...c.overlap.map((o) => o.blocks));
  const blockSize =
    c.routingRegretBlocks > 0 ? Math.round(c.routingRegretTokens / c.routingRegretBlocks) : null;
  return (
    <section
      className="panel insight-panel"
      aria-label="The router's view"
      data-testid="router-panel"
    >
      <h3>The router&apos;s view</h3>
      <ul className="insight-facts">
        <li>
          <strong>{formatInt(c.duplicateStores)}</strong>{' '}
          {nounFor(c.duplicateStores, 'duplicate store')} (
          {formatPercent(c.duplicateStores, report.totals.newStores)} of new stores): blocks stored
          while another source already held them.
        </li>
        <li>
          Routing regret: <strong>{formatInt(c.routingRegretBlocks)}</strong>{' '}
          {nounFor(c.routingRegretBlocks, 'block')} ({plural(c.routingRegretTokens, 'token')}
          {blockSize !== null ? `, ${blockSize} per block` : ''}) that one other source held as a
          leading run when they were stored.
        </li>
        <li>
          Held now by two or more sources: <strong>{formatInt(c.sharedBlocksNow)}</strong>{' '}
          {nounFor(c.sharedBlocksNow, 'block')}; duplicate copies:{' '}
          <strong>{formatInt(c.duplicateBlocksNow)}</strong>.
        </li>
      </ul>
      {names.length >= 2 && (
        <div className="table-scroll">
          <table className="heatmap" data-testid="overlap-heatmap" aria-label="Blocks held by both">
            <thead>
              <tr>
                <th />
                {names.map((n) => (
                  <th key={n} scope="col" title={label(n)}>
                    {ellipsizeMiddle(label(n), HEADER_CHARS)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {names.map((a) => (
                <tr key={a}>
                  <th scope="row" title={label(a)}>
                    {ellipsizeMiddle(label(a), HEADER_CHARS)}
                  </th>
                  {names.map((b) => {
                    const v = a === b ? null : at(a, b);
                    return (
                      <td
                        key={b}
                        className="num"
                        data-value={v ?? ''}
                        style={
                          v === null || heatAlpha(v, max) === null
                            ? undefined
                            : { background: `rgba(31, 111, 235, ${heatAlpha(v, max)})` }
                        }
                        title={
                          v === null
                            ? ''
                            : `${label(a)} and ${label(b)} both hold ${plural(v, 'block')}`
                        }
                      >
                        {v === null ? '—' : formatInt(v)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

import type { SourceStatus } from '../../shared/api-types';
import { LAMP, stateLabel } from '../components/status-strip';
import { formatAge, formatAgo, formatBytes, formatInt, formatRate } from '../lib/format';

interface Props {
  s: SourceStatus;
  /** Wall-clock ms of the latest frame. */
  wallNow: number;
}

/** lastMessageAt as epoch seconds, whether it came in seconds or milliseconds. */
function epochSec(t: number | null): number | null {
  if (t == null) return null;
  return t > 1e12 ? t / 1000 : t;
}

/** Health of one subscribed endpoint: state, rates, integrity counters, schema. */
export function SourceCard({ s, wallNow }: Props) {
  const c = s.counters;
  const fp = s.fingerprint;
  return (
    <article className="source-card" aria-label={`Source ${s.name}`} data-testid={`source-${s.id}`}>
      <header className="source-head">
        <span className={`lamp ${LAMP[s.state]}`} aria-hidden="true" />
        <strong className="ellipsis" title={s.name}>
          {s.name}
        </strong>
        <span className="source-states">
          <span className={`state state-${s.state}`} data-testid={`source-state-${s.id}`}>
            {stateLabel(s)}
          </span>
          {s.stale && s.residentBlocks > 0 && (
            <span
              className="stale-badge"
              data-testid={`source-stale-${s.id}`}
              title="Not receiving: its numbers are its last known state"
            >
              stale{s.ageSec === null ? '' : ` · ${formatAge(s.ageSec)}`}
            </span>
          )}
        </span>
        <span className="mono muted ellipsis" title={s.endpoint}>
          {s.endpoint}
        </span>
      </header>
      <dl className="stats">
        <dt>stored/s</dt>
        <dd>{formatRate(s.storedPerSec)}</dd>
        <dt>removed/s</dt>
        <dd>{formatRate(s.removedPerSec)}</dd>
        <dt>resident</dt>
        <dd>{formatInt(s.residentBlocks)}</dd>
        <dt>messages</dt>
        <dd>{formatInt(c.messages)}</dd>
        <dt>events</dt>
        <dd>{formatInt(c.events)}</dd>
        <dt>bytes</dt>
        <dd>{formatBytes(c.bytes)}</dd>
        <dt>gaps</dt>
        <dd className={c.gaps ? 'warn-text' : ''} data-testid={`source-gaps-${s.id}`}>
          {formatInt(c.gaps)}
        </dd>
        <dt>recovered</dt>
        <dd>{formatInt(c.recovered)}</dd>
        <dt>lost</dt>
        <dd className={c.lost ? 'bad-text' : ''}>{formatInt(c.lost)}</dd>
        <dt>undecoded</dt>
        <dd className={c.undecoded ? 'bad-text' : ''} data-testid={`source-undecoded-${s.id}`}>
          {formatInt(c.undecoded)}
        </dd>
        <dt>bad events</dt>
        <dd className={c.eventErrors ? 'bad-text' : ''}>{formatInt(c.eventErrors)}</dd>
        <dt>restarts</dt>
        <dd>{formatInt(c.resets)}</dd>
        <dt>duplicates</dt>
        <dd>{formatInt(c.duplicates)}</dd>
        <dt>last message</dt>
        <dd>{formatAgo(epochSec(s.lastMessageAt), wallNow / 1000)}</dd>
      </dl>
      {s.hint && (
        <p className="hint" data-testid={`source-hint-${s.id}`}>
          {s.hint}
        </p>
      )}
      {s.lastError && (
        <p className="error" data-testid={`source-error-${s.id}`}>
          {s.lastError}
        </p>
      )}
      {fp && (
        <details className="fingerprint">
          <summary>
            Schema: {fp.batch.join('+')} batches, {fp.events.join('+')} events,{' '}
            {fp.hashes.join('+')} hashes
            {fp.unknownFields.length > 0 && (
              <span className="warn-text"> · {fp.unknownFields.length} unknown fields</span>
            )}
          </summary>
          <p className="mono small">fields: {fp.fields.join(', ') || '—'}</p>
          {fp.rankField.length > 0 && (
            <p className="small">dp rank field: {fp.rankField.join(', ')}</p>
          )}
          {fp.unknownFields.length > 0 && (
            <p className="mono small warn-text">unknown: {fp.unknownFields.join(', ')}</p>
          )}
        </details>
      )}
    </article>
  );
}

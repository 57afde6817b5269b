import type { SourceStatus } from '../../shared/api-types';
import { clockOffsetText, formatAge } from '../lib/format';
import { sourceNameMap, sourceOptions } from '../lib/source-names';

export const LAMP: Record<SourceStatus['state'], string> = {
  connecting: 'lamp-wait',
  waiting: 'lamp-wait',
  connected: 'lamp-ok',
  stalled: 'lamp-warn',
  error: 'lamp-bad',
  closed: 'lamp-off',
};

/** The state as a user reads it ("closed" is a disconnect the user asked for). */
export function stateLabel(s: Pick<SourceStatus, 'state' | 'lastMessageAt'>): string {
  if (s.state === 'closed') return 'disconnected';
  // Connecting again after data came: the engine hung up and ZeroMQ is reconnecting.
  if (s.state === 'connecting' && s.lastMessageAt !== null) return 'reconnecting';
  return s.state;
}

interface Props {
  sources: readonly SourceStatus[];
}

/**
 * One line per source above the charts: lamp, name, state, age of its last message, its clock
 * offset, its problem (a failure, or a warning while it runs) and its hint.
 */
export function StatusStrip({ sources }: Props) {
  if (sources.length === 0) return null;
  // Two connections may share a name: each then shows its id after it, as in the filters.
  const labels = sourceOptions(
    sourceNameMap(sources),
    sources.map((s) => s.id),
  );
  return (
    <ul className="status-strip" aria-label="Sources" data-testid="status-strip">
      {sources.map((s, i) => (
        <li key={s.id} className="status-item" data-testid={`status-${s.id}`}>
          <span className={`lamp ${LAMP[s.state]}`} aria-hidden="true" />
          <strong className="ellipsis" title={s.endpoint}>
            {labels[i]?.label}
          </strong>
          <span className={`state state-${s.state}`}>{stateLabel(s)}</span>
          <span className="muted" data-testid={`status-age-${s.id}`}>
            {s.ageSec === null ? 'nothing received yet' : `last message ${formatAge(s.ageSec)}`}
          </span>
          {!!s.clockOffsetS && (
            <span
              className="muted"
              data-testid={`status-clock-${s.id}`}
              title="Its batches are charted at their time plus this offset, measured as its batches arrive (at the first, and again if the first waited in a queue); the Events list shows the engine's own times."
            >
              {clockOffsetText(s.clockOffsetS)}: charted on KV Scope&apos;s clock
            </span>
          )}
          {s.stale && s.residentBlocks > 0 && <span className="stale-badge">stale</span>}
          {s.lastError && (
            <p className="error status-hint" data-testid={`status-error-${s.id}`}>
              {s.lastError}
            </p>
          )}
          {s.hint && s.state !== 'connected' && (
            <p className="hint status-hint" data-testid={`status-hint-${s.id}`}>
              {s.hint}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

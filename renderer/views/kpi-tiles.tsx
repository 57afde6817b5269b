import type { CSSProperties } from 'react';
import type { Kpis } from '../../shared/api-types';
import { formatInt, formatRate } from '../lib/format';

interface Tile {
  id: string;
  label: string;
  value: number;
  /** What the tile shows (thousands separators, as the Insights' figures); the number is its data-value. */
  pretty: string;
  tone?: 'warn' | 'bad';
  title: string;
  /** A qualifier under the value, e.g. how much of it is stale (a last known state). */
  note?: { id: string; value: number; text: string };
}

function tiles(k: Kpis): Tile[] {
  const int = (id: string, label: string, value: number, title: string, tone?: Tile['tone']) => ({
    id,
    label,
    value: Math.round(value),
    pretty: formatInt(value),
    title,
    tone,
  });
  return [
    {
      ...int('resident-blocks', 'Resident', k.residentBlocks, 'Blocks in the cache now'),
      note:
        k.staleResidentBlocks > 0
          ? {
              id: 'resident-stale',
              value: k.staleResidentBlocks,
              text: `${formatInt(k.staleResidentBlocks)} stale`,
            }
          : undefined,
    },
    {
      id: 'stored-per-sec',
      label: 'Stored / s',
      value: Math.round(k.storedPerSec * 10) / 10,
      pretty: formatRate(k.storedPerSec),
      title: 'Blocks stored per second, lately',
    },
    {
      id: 'removed-per-sec',
      label: 'Removed / s',
      value: Math.round(k.removedPerSec * 10) / 10,
      pretty: formatRate(k.removedPerSec),
      title: 'Blocks removed (evicted) per second, lately',
    },
    int('stored-blocks', 'Stored total', k.storedBlocks, 'Blocks stored since the start'),
    int('removed-blocks', 'Removed total', k.removedBlocks, 'Blocks removed since the start'),
    int('events', 'Events', k.events, 'Events received'),
    int('clears', 'Clears', k.clears, 'AllBlocksCleared events', k.clears > 0 ? 'warn' : undefined),
    int(
      'gaps',
      'Gaps',
      k.gaps,
      `Sequence gaps: ${formatInt(k.recovered)} recovered, ${formatInt(k.lost)} lost`,
      k.lost > 0 ? 'bad' : k.gaps > 0 ? 'warn' : undefined,
    ),
    int(
      'undecoded',
      'Undecoded',
      k.undecoded,
      'Messages that could not be decoded',
      k.undecoded > 0 ? 'bad' : undefined,
    ),
  ];
}

interface Props {
  kpis: Kpis | null;
}

/** The headline numbers; each value element has a stable test id and carries its exact number. */
export function KpiTiles({ kpis }: Props) {
  if (!kpis) return <div className="kpis kpis-empty muted">Waiting for the first update…</div>;
  return (
    <div className="kpis" aria-label="Key numbers">
      {tiles(kpis).map((t) => (
        <div
          key={t.id}
          className={`kpi ${t.tone ? `kpi-${t.tone}` : ''}`}
          title={`${t.title}: ${t.pretty}`}
        >
          <div className="kpi-label">{t.label}</div>
          <div
            className="kpi-value"
            data-testid={`kpi-${t.id}`}
            data-value={t.value}
            // Its length sizes the font down in a narrow tile, so a 7-8 digit total shows whole.
            style={{ '--kpi-chars': t.pretty.length } as CSSProperties}
          >
            {t.pretty}
          </div>
          {t.note && (
            <div
              className="kpi-note"
              data-testid={`kpi-${t.note.id}`}
              data-value={t.note.value}
              title="Held by sources that are disconnected or stalled: their last known state"
            >
              {t.note.text}
            </div>
          )}
        </div>
      ))}
    </div>
  );
}

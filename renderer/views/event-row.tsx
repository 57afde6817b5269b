import type { EventRow as Row } from '../../shared/api-types';
import { HashText } from '../components/hash-text';
import { MiddleCut } from '../components/middle-cut';
import { formatClock, formatDateTime, formatInt, plural } from '../lib/format';
import { sourceLabel, sourceTitle } from '../lib/source-names';
import type { SourceNames } from '../lib/source-names';

const TYPE_CLASS = {
  BlockStored: 'ev-stored',
  BlockRemoved: 'ev-removed',
  AllBlocksCleared: 'ev-cleared',
} as const;

/** vLLM's locality and ownership (a secondary tier's id), when the event carried them. */
function placement(e: { locality?: string; ownership?: string }): (string | null)[] {
  return [e.locality ?? null, e.ownership !== undefined ? `owner ${e.ownership}` : null];
}

function details(r: Row): string {
  const e = r.event;
  if (e.type === 'BlockStored') {
    const extras = [
      ...placement(e),
      plural(e.token_count, 'token'),
      `block ${formatInt(e.block_size)}`,
      e.lora_name ? `lora ${e.lora_name}` : e.lora_id != null ? `lora #${e.lora_id}` : null,
      e.group_idx != null ? `group ${e.group_idx}` : null,
      e.kv_cache_spec_kind,
      e.extra_keys_count ? plural(e.extra_keys_count, 'extra key') : null,
      e.metadata_count ? `${formatInt(e.metadata_count)} metadata` : null,
      e.session_id_count ? 'session id' : null,
    ];
    return extras.filter(Boolean).join(' · ');
  }
  if (e.type === 'BlockRemoved')
    return [...placement(e), e.group_idx != null ? `group ${e.group_idx}` : null]
      .filter(Boolean)
      .join(' · ');
  return 'every block dropped';
}

interface Props {
  r: Row;
  names: SourceNames;
  /** 0 for the list's one Tab stop, -1 for the other rows. */
  tabIndex: 0 | -1;
  selected: boolean;
  onSelect(r: Row): void;
}

/** One redacted event in the log; a click or Enter shows all its fields. */
export function EventRow({ r, names, tabIndex, selected, onSelect }: Props) {
  const e = r.event;
  const hashes = e.type === 'AllBlocksCleared' ? [] : e.block_hashes;
  const first = hashes[0] ?? null;
  return (
    <div
      role="row"
      tabIndex={tabIndex}
      className={`trow clickable ${selected ? 'selected' : ''}`}
      aria-selected={selected}
      data-testid="event-row"
      onClick={() => onSelect(r)}
      onKeyDown={(ev) => {
        // Enter opens; Space is the view's pause (the shortcuts list).
        if (ev.key === 'Enter') {
          ev.preventDefault();
          onSelect(r);
        }
      }}
    >
      <div role="cell" className="cell" title={formatDateTime(r.ts)}>
        {formatClock(r.ts, true)}
      </div>
      <div role="cell" className="cell source-cell" title={sourceTitle(names, r.source)}>
        <MiddleCut text={sourceLabel(names, r.source)} />
        {/* Every rank the batch named, rank 0 too (dp0 beside dp1), kept in view when the name
            is cut short: it is what tells a data-parallel engine's ranks apart. */}
        {r.dp_rank != null ? <span className="muted rank"> dp{r.dp_rank}</span> : null}
      </div>
      <div role="cell" className="cell num narrower-hidden">
        {formatInt(r.seq)}
      </div>
      <div role="cell" className={`cell ${TYPE_CLASS[e.type]}`}>
        {e.type}
      </div>
      <div role="cell" className="cell hash-cell" title={hashes.join('\n')}>
        {first != null ? <HashText hash={first} fit /> : <span className="muted">—</span>}
        {hashes.length > 1 && <span className="muted more">+{formatInt(hashes.length - 1)}</span>}
      </div>
      <div role="cell" className="cell hash-cell narrow-hidden">
        {e.type === 'BlockStored' ? (
          <HashText hash={e.parent_block_hash} fit />
        ) : (
          <span className="muted">—</span>
        )}
      </div>
      <div role="cell" className="cell ellipsis">
        {e.medium ?? '—'}
      </div>
      <div role="cell" className="cell ellipsis muted" title={details(r)}>
        {details(r)}
      </div>
    </div>
  );
}

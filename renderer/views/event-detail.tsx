import type { EventRow } from '../../shared/api-types';
import { UNSPECIFIED_MEDIUM } from '../../shared/events';
import { CopyButton } from '../components/copy-button';
import { HashText } from '../components/hash-text';
import { formatAgo, formatInt, formatIso, plural } from '../lib/format';
import { sourceLabel, sourceTitle } from '../lib/source-names';
import type { SourceNames } from '../lib/source-names';

interface Props {
  row: EventRow;
  names: SourceNames;
  /** The latest event time, for "how long ago". */
  nowTs: number | null;
  onClose(): void;
  /** Shows the chains through a block in the Chains view. */
  onOpenChain?(hash: string): void;
}

/** Hashes listed at most; the copy-all button copies every one. */
const MAX_LISTED = 200;

/** A term and its value, left out when there is no value. */
function Field({ term, children }: { term: string; children: React.ReactNode }) {
  if (children == null || children === false) return null;
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** A presence count (extra keys, metadata, session id): how many, never what. */
function presence(n: number): string | null {
  return n > 0 ? `${formatInt(n)} present (values not kept)` : null;
}

/**
 * Every redacted field of one event, beside the log. Prompt content never reached the renderer:
 * token ids are a count, extra keys, metadata and session ids a presence count.
 */
export function EventDetail({ row, names, nowTs, onClose, onOpenChain }: Props) {
  const e = row.event;
  const hashes = e.type === 'AllBlocksCleared' ? [] : e.block_hashes;
  const stored = e.type === 'BlockStored' ? e : null;
  // vLLM's offloading connector moving blocks to another tier: no parent and no token ids (the
  // chains link nothing of it, README "Chains").
  const offload = stored !== null && stored.parent_block_hash == null && stored.token_count === 0;
  const placed = e.type === 'AllBlocksCleared' ? null : e;
  return (
    <section
      className="panel detail event-detail"
      aria-label="Event detail"
      data-testid="event-detail"
      // Focusable by a click (never a Tab stop), so Escape still closes it after a click on a
      // blank part: the focus would otherwise fall on <body>, where the view hears no key.
      tabIndex={-1}
    >
      <div className="detail-head">
        <h2>{e.type}</h2>
        <button
          type="button"
          className="btn btn-small"
          onClick={onClose}
          aria-label="Close the event detail"
        >
          Close
        </button>
      </div>
      <dl className="kv event-fields">
        <Field term="Source">
          <span title={sourceTitle(names, row.source)} data-testid="event-detail-source">
            {sourceLabel(names, row.source)}
          </span>
        </Field>
        <Field term="Data-parallel rank">{row.dp_rank != null && formatInt(row.dp_rank)}</Field>
        <Field term="Seq">
          <span data-testid="event-detail-seq">{formatInt(row.seq)}</span>
          <span className="muted"> · event {formatInt(row.idx + 1)} of its batch</span>
        </Field>
        <Field term="Time">
          <span className="mono" data-testid="event-detail-time">
            {formatIso(row.ts)}
          </span>
          <span className="muted"> · {formatAgo(row.chartTs ?? row.ts, nowTs)}</span>
        </Field>
        <Field term="Medium">{e.medium ?? UNSPECIFIED_MEDIUM}</Field>
        <Field term="Locality">{placed?.locality}</Field>
        <Field term="Ownership">{placed?.ownership}</Field>
        <Field term="Blocks">
          {e.type === 'AllBlocksCleared' ? 'every block of the source' : formatInt(hashes.length)}
          {stored && <span className="muted"> · {plural(stored.block_size, 'token')} each</span>}
        </Field>
        {/* One child, or none: a removal or a clear has no tokens (an empty row said so). */}
        <Field term="Tokens">
          {stored && (
            <>
              {formatInt(stored.token_count)}
              {offload && <span className="muted"> (an offload carries no token ids)</span>}
            </>
          )}
        </Field>
        <Field term="Parent">
          {stored && (
            <span data-testid="event-detail-parent">
              {offload ? (
                <span className="muted">
                  none: an offload (to {e.medium ?? 'another tier'}) is a set of blocks, not a chain
                </span>
              ) : stored.parent_block_hash == null ? (
                <span className="muted">none (a root)</span>
              ) : (
                <HashText hash={stored.parent_block_hash} max={40} />
              )}
            </span>
          )}
        </Field>
        <Field term="LoRA">
          {stored &&
            (stored.lora_name ?? (stored.lora_id != null ? `#${formatInt(stored.lora_id)}` : null))}
        </Field>
        <Field term="Group">{placed?.group_idx != null && formatInt(placed.group_idx)}</Field>
        <Field term="KV cache spec">
          {stored?.kv_cache_spec_kind &&
            `${stored.kv_cache_spec_kind}${stored.kv_cache_spec_sliding_window != null ? `, window ${formatInt(stored.kv_cache_spec_sliding_window)}` : ''}`}
        </Field>
        <Field term="Extra keys">{stored && presence(stored.extra_keys_count)}</Field>
        <Field term="Metadata">{stored && presence(stored.metadata_count)}</Field>
        <Field term="Session id">{stored && presence(stored.session_id_count)}</Field>
      </dl>
      {hashes.length > 0 && (
        <div className="event-hashes">
          <div className="event-hashes-head">
            <h3>Block hashes</h3>
            {hashes.length > 1 && (
              <CopyButton hashes={hashes} label={`Copy all ${formatInt(hashes.length)} hashes`} />
            )}
            {onOpenChain && (
              <button
                type="button"
                className="btn btn-small"
                data-testid="event-open-chain"
                // Its last block: the deepest of the event, on every chain through the others.
                title="The chains through this event's last block, in Chains"
                onClick={() => onOpenChain(hashes[hashes.length - 1] as string)}
              >
                Show in Chains
              </button>
            )}
          </div>
          <ol className="hash-list" data-testid="event-detail-hashes">
            {hashes.slice(0, MAX_LISTED).map((h, i) => (
              <li key={`${i}:${h}`}>
                <HashText hash={h} max={40} />
              </li>
            ))}
          </ol>
          {hashes.length > MAX_LISTED && (
            <p className="muted small">
              {plural(hashes.length - MAX_LISTED, 'more hash', 'more hashes')}: the copy button
              above copies them all.
            </p>
          )}
        </div>
      )}
    </section>
  );
}

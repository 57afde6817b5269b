// The chains of a view as CSV or JSON, in the view's order and with its filter applied, read page
// by page. Source names and ISO 8601 times beside the ids and raw times.

import type { ChainFilter, ChainSummary, ExportFormat } from '../../shared/api-types';
import type { CacheModel } from '../model/cache-model';
import { isoTime } from './csv';
import { listExport } from './list-export';

export const CHAIN_CSV_COLUMNS = [
  'chain_id',
  'root',
  'depth_blocks',
  'depth_tokens',
  'resident_blocks',
  'evicted_blocks',
  'restores',
  'sources',
  'source_ids',
  'first_seen_iso',
  'last_seen_iso',
  'first_seen_ts',
  'last_seen_ts',
] as const;

/**
 * The matching chains in the view's order, taken in one query: the export is written while the
 * live forest moves on, and pages taken apart would shift under it. A held list's are the chains
 * it holds; when the service no longer keeps them, the export is refused rather than written of
 * other chains than the screen shows.
 */
function matching(model: Pick<CacheModel, 'chains'>, filter: ChainFilter): ChainSummary[] {
  const page = model.chains({ ...filter, offset: 0, limit: Number.MAX_SAFE_INTEGER }, false);
  if (page.renewed)
    throw new Error(
      'the chains this held list shows are no longer kept by the service (unused for 10 minutes, 8 other screens since, or a restart): resume the list and export again',
    );
  return page.rows;
}

/** The filter as the JSON export states it: the view's own ids left out. */
function statedFilter({ view: _view, hold, generation: _generation, ...f }: ChainFilter): object {
  return hold === true ? { ...f, held: true } : f;
}

/** The chain as the export's named fields. */
function fields(c: ChainSummary, name: (id: string) => string) {
  return {
    chain_id: c.id,
    root: c.root,
    depth_blocks: c.depthBlocks,
    depth_tokens: c.depthTokens,
    resident_blocks: c.residentBlocks,
    evicted_blocks: c.evictedBlocks,
    restores: c.restores,
    sources: c.sources.map(name),
    source_ids: c.sources,
    first_seen_iso: isoTime(c.firstSeen),
    last_seen_iso: isoTime(c.lastSeen),
    first_seen_ts: c.firstSeen,
    last_seen_ts: c.lastSeen,
  } satisfies Record<(typeof CHAIN_CSV_COLUMNS)[number], unknown>;
}

/** The export's text, chunk by chunk. */
export function chainExport(
  model: Pick<CacheModel, 'chains'>,
  filter: ChainFilter,
  format: ExportFormat,
  name: (id: string) => string,
): Generator<string> {
  return listExport(matching(model, filter), format, statedFilter(filter), {
    kind: 'chains',
    columns: CHAIN_CSV_COLUMNS,
    csvRow: (c) => {
      const f = fields(c, name);
      // Several sources in one cell, "; " between them.
      return CHAIN_CSV_COLUMNS.map((k) => {
        const v = f[k];
        return Array.isArray(v) ? v.join('; ') : v;
      });
    },
    jsonRow: (c) => fields(c, name),
  });
}

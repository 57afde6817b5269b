// Lines printed by `kvscope capture`: the readable lines, and the JSON line of an undecodable
// payload. The JSON lines of events (the seed script's keys, plus seq and dp_rank, with exact
// integer hashes) are written by event-json.ts.
import type { EventErrorRecord, EventRecord, KvEvent, UndecodedRecord } from '../../shared/events';
import { hashTexts } from '../../shared/hash-list';

/** The JSON line of a payload that could not be decoded: size and error, never the bytes. */
export function undecodedJsonLine(u: UndecodedRecord, dpRank: number | null = null): string {
  return (
    `{"ts":null,"type":"UNDECODED","bytes":${u.bytes},"error":${JSON.stringify(u.error)},` +
    `"seq":${u.seq === null ? 'null' : u.seq},"dp_rank":${dpRank === null ? 'null' : dpRank}}`
  );
}

/**
 * The JSON line of an event that could not be decoded (its batch's others were applied): its place
 * and error, never its content. Without it, a batch all of whose events failed left a hole in the
 * file's seqs, which `analyze` read as a lost batch.
 */
export function eventErrorJsonLine(e: EventErrorRecord, dpRank: number | null = null): string {
  return (
    `{"ts":null,"type":"EVENT_ERROR","seq":${e.seq},"idx":${e.idx},"error":${JSON.stringify(e.error)},` +
    `"dp_rank":${dpRank === null ? 'null' : dpRank}}`
  );
}

/**
 * A publisher's text (a medium, a LoRA name) as a readable line may show it: its control
 * characters escaped, so a name cannot end the line, forge the next one, or drive the terminal
 * (ANSI escapes). The JSON lines escape them already.
 */
function shown(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const code = c.charCodeAt(0);
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

function short(key: string): string {
  return key.length > 20 ? `${key.slice(0, 16)}…` : key;
}

/** A readable one-line summary of an event (hashes in full for ints, shortened hex digests). */
export function eventTextLine(n: number, r: EventRecord): string {
  const e: KvEvent = r.event;
  const head = `[${n}] seq=${r.seq} rank=${r.dp_rank ?? '-'} ts=${r.ts} ${e.type}`;
  switch (e.type) {
    case 'BlockStored':
      return (
        `${head}: blocks=[${hashTexts(e.block_hashes).map(short).join(', ')}] parent=${e.parent_block_hash === null ? 'none' : short(e.parent_block_hash)}` +
        ` tokens=${e.token_count} block_size=${e.block_size}` +
        (e.medium === null ? '' : ` medium=${shown(e.medium)}`) +
        (e.lora_id === null ? '' : ` lora_id=${e.lora_id}`) +
        (e.lora_name === null ? '' : ` lora_name=${shown(e.lora_name)}`) +
        (e.group_idx === null ? '' : ` group=${e.group_idx}`)
      );
    case 'BlockRemoved':
      return (
        `${head}: blocks=[${hashTexts(e.block_hashes).map(short).join(', ')}]` +
        (e.medium === null ? '' : ` medium=${shown(e.medium)}`)
      );
    case 'AllBlocksCleared':
      return e.medium === null ? head : `${head}: medium=${shown(e.medium)}`;
  }
}

/** A readable line for an undecodable payload. */
export function undecodedTextLine(n: number, u: UndecodedRecord): string {
  return `[${n}] seq=${u.seq ?? '-'} UNDECODED: ${u.bytes} bytes: ${u.error}`;
}

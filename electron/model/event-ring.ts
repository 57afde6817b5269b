// The last N events in memory for the event log; the recording file holds them all.
// A row is its event's line (UTF-8 bytes in one circular arena) plus typed-array columns for the
// filters, and no JS object: an object held for the seconds a row lives is promoted to V8's old
// space and collected there, a GC cost per message of the live path (and of opening a session).
// Only the rows a page returns are decoded; a hash filter searches the arena's bytes and decodes
// only the rows where a hash could match.

import type { EventPage, EventQuery, EventRow } from '../../shared/api-types';
import {
  KV_EVENT_TYPES,
  UNSPECIFIED_MEDIUM,
  type EventRecord,
  type HashTexts,
} from '../../shared/events';
import { hashMatcher, hashTerms, type HashTerms } from './hash-query';
import { NameTable } from './name-table';

/** Events kept in memory by default. */
export const DEFAULT_RING_SIZE = 50_000;

/** Turns a line the ring was given with its event back into that event (the session format's reader). */
export type EventLineReader = (line: string) => EventRecord<HashTexts>;
/** A source's event time placed on the charts' axis (ChartClock.shifted). */
export type ChartTime = (source: string, ts: number) => number;

/** A batch's event lines as UTF-8 bytes, line i at buf[lineStart(i), lineEnd(i)) (session/event-line-encoder.ts). */
export interface LineBytes {
  readonly buf: Buffer;
  lineStart(i: number): number;
  lineEnd(i: number): number;
}

/** Bounds of the byte arena (defaults scale with the capacity). */
export interface EventRingOptions {
  /** Bytes the arena starts with; it doubles while rows need more. */
  initialBytes?: number;
  /** Bytes the arena grows to at most; past it the oldest rows make room (fewer are held). */
  maxBytes?: number;
  /** Reads the lines pushed with their event; rows pushed without one are the record's JSON. */
  readLine?: EventLineReader;
}

/** The line is JSON.stringify of the record (no line was given): JSON.parse reads it back. */
const OWN_JSON = 1;
/** The line is held as a string beside the arena: it was too long for it. */
const LONG = 2;
/** The arena lap the row was written in (see `lap`). */
const LAP = 4;
/** The row's source was removed (a removed connection): no query answers it any more. */
const GONE = 8;

const TYPE_CODES = new Map(KV_EVENT_TYPES.map((t, i) => [t, i]));
const CLEARED = KV_EVENT_TYPES.indexOf('AllBlocksCleared');
const QUOTE = 0x22;
const COLON = 0x3a;
// A hash query's verdict on a row.
const UNDECIDED = 0;
const NO = 1;
const YES = 2;
const BACKSLASH = Buffer.from('\\');

/** A fixed-size ring of the newest events; the k-th newest arrived as number n - k. */
export class EventRing {
  private arena: Buffer;
  private readonly maxBytes: number;
  /** Rows longer than this are held as strings in `long` (a rare fallback). */
  private readonly longBytes: number;
  // Not readonly: a state snapshot leaves functions out (reattach).
  private readLine: EventLineReader | null;
  // Columns, one entry per slot.
  private readonly off: Uint32Array;
  private readonly len: Uint32Array;
  private readonly ts: Float64Array;
  private readonly src: Uint32Array;
  private readonly medium: Uint32Array;
  private readonly type: Uint8Array;
  private readonly flags: Uint8Array;
  private readonly long = new Map<number, string>();
  /**
   * Per slot, what the current hash query decided for its row (UNDECIDED, NO, YES), kept while
   * the query stays the same: a live log asked again each frame decodes only the rows that came
   * since, and an export's pages decode each row once.
   */
  private verdicts: { key: string; of: Uint8Array } | null = null;
  private readonly sources = new NameTable();
  private readonly media = new NameTable();
  private next = 0;
  private count = 0;
  /** Arrival number of the next event. */
  private n = 0;
  /** Where the next row's bytes go. */
  private head = 0;
  /**
   * Flips each time writing wraps to the arena's start. A held row of the other lap lies between
   * the oldest row and the arena's end; rows of this lap lie from the start to `head`.
   */
  private lap = 0;

  constructor(
    readonly capacity = DEFAULT_RING_SIZE,
    opts: EventRingOptions = {},
  ) {
    // About a kilobyte per row at most (a typical event line is a few hundred bytes).
    this.maxBytes = opts.maxBytes ?? Math.min(64 << 20, Math.max(1 << 20, capacity * 1024));
    this.longBytes = Math.max(1, Math.floor(this.maxBytes / 16));
    const initial = opts.initialBytes ?? Math.max(64 << 10, capacity * 64);
    // Zeroed, as it grows below: an open's kept state (the open cache) writes the arena whole, and
    // the bytes allocUnsafe leaves are the process's old memory (raw frames among it).
    this.arena = Buffer.alloc(Math.min(this.maxBytes, initial));
    this.readLine = opts.readLine ?? null;
    this.off = new Uint32Array(capacity);
    this.len = new Uint32Array(capacity);
    this.ts = new Float64Array(capacity);
    this.src = new Uint32Array(capacity);
    this.medium = new Uint32Array(capacity);
    this.type = new Uint8Array(capacity);
    this.flags = new Uint8Array(capacity);
  }

  /** After a state snapshot is read: its line reader (a snapshot leaves functions out). */
  reattach(readLine: EventLineReader | null): void {
    this.readLine = readLine;
  }

  /**
   * Keep an event; `line` is its line as the ring's reader reads it (the recording's line, encoded
   * once for both), else the ring holds the record's JSON.
   */
  push(rec: EventRecord, line?: string): void {
    if (this.capacity === 0) {
      this.n += 1;
      return;
    }
    if (this.count === this.capacity) this.dropOldest();
    let flags = 0;
    let text = line;
    if (text === undefined || this.readLine === null) {
      text = JSON.stringify(rec);
      flags = OWN_JSON;
    }
    const slot = this.next;
    const at = this.place(text);
    if (at < 0) {
      flags |= LONG;
      this.long.set(slot, text);
      this.off[slot] = this.head;
      this.len[slot] = 0;
    } else {
      this.off[slot] = at;
      this.len[slot] = this.arena.write(text, at);
      this.head = at + (this.len[slot] as number);
    }
    this.fill(slot, rec, flags);
  }

  /**
   * Keep an event whose line is already UTF-8: src[start, end) (the live path's bytes, written once
   * for the recording and the ring), copied into the arena without a string.
   */
  pushBytes(rec: EventRecord, src: Buffer, start: number, end: number): void {
    if (this.capacity === 0 || this.readLine === null) return this.push(rec);
    if (this.count === this.capacity) this.dropOldest();
    const slot = this.next;
    const need = end - start;
    const at = this.placeBytes(need);
    let flags = 0;
    if (at < 0) {
      flags = LONG;
      this.long.set(slot, src.toString('utf8', start, end));
      this.off[slot] = this.head;
      this.len[slot] = 0;
    } else {
      src.copy(this.arena, at, start, end);
      this.off[slot] = at;
      this.len[slot] = need;
      this.head = at + need;
    }
    this.fill(slot, rec, flags);
  }

  /**
   * Keep a batch's events whose lines lie back to back in `lines`, each followed by its newline
   * (EventLines): their bytes go into the arena in one copy where they fit together, the newlines
   * between them left unused. A Buffer.copy per event (a view made and a call each) was most of
   * the ring's cost on the live path.
   */
  pushLines(recs: readonly EventRecord[], lines: LineBytes): void {
    const n = recs.length;
    if (n === 0) return;
    const start = lines.lineStart(0);
    const end = lines.lineEnd(n - 1);
    if (
      this.capacity === 0 ||
      this.readLine === null ||
      n > this.capacity ||
      end - start > this.longBytes
    ) {
      for (let i = 0; i < n; i++)
        this.pushBytes(recs[i] as EventRecord, lines.buf, lines.lineStart(i), lines.lineEnd(i));
      return;
    }
    // Slots first: the rows dropped for them free their bytes too.
    while (this.count + n > this.capacity) this.dropOldest();
    const at = this.placeBytes(end - start);
    lines.buf.copy(this.arena, at, start, end);
    for (let i = 0; i < n; i++) {
      const slot = this.next;
      const from = lines.lineStart(i);
      this.off[slot] = at + from - start;
      this.len[slot] = lines.lineEnd(i) - from;
      this.fill(slot, recs[i] as EventRecord, 0);
    }
    this.head = at + end - start;
  }

  /** The slot's columns for `rec`, and the ring moved on past it. */
  private fill(slot: number, rec: EventRecord, flags: number): void {
    if (this.verdicts) this.verdicts.of[slot] = UNDECIDED;
    this.flags[slot] = flags | (this.lap ? LAP : 0);
    this.ts[slot] = rec.ts;
    this.src[slot] = this.sources.id(rec.source);
    this.medium[slot] = this.media.id(rec.event.medium ?? UNSPECIFIED_MEDIUM);
    this.type[slot] = TYPE_CODES.get(rec.event.type) ?? CLEARED;
    this.n += 1;
    this.next = (this.next + 1) % this.capacity;
    this.count += 1;
  }

  size(): number {
    return this.count;
  }

  /**
   * Stops answering the held rows of a source (a removed connection leaves every total, the log
   * and its exports too). Rows it sends after this (the connection added again) are answered.
   */
  removeSource(source: string): void {
    const src = this.sources.find(source);
    if (src === undefined) return;
    for (let i = 0, slot = this.oldest(); i < this.count; i += 1) {
      if (this.src[slot] === src) this.flags[slot] = (this.flags[slot] as number) | GONE;
      slot = (slot + 1) % this.capacity;
    }
  }

  /** Bytes of the arena and the columns (for the memory figures). */
  bytes(): number {
    const columns = this.capacity * (4 + 4 + 8 + 4 + 4 + 1 + 1);
    return this.arena.length + columns + (this.verdicts?.of.byteLength ?? 0);
  }

  /** Bytes the arena holds now (it grows to its cap as rows need). */
  arenaBytes(): number {
    return this.arena.length;
  }

  /**
   * Matching events, newest first (up to arrival number q.upTo, before q.beforeTs when given), paged.
   * An offset past the end answers the last page, from the offset it says: a held list's oldest
   * rows leave the ring as new events arrive, and a reader at its end asked for rows already gone
   * (2,000 events a second outran every fetch, and the rows stayed "…").
   */
  query(q: EventQuery, chartTime?: ChartTime): EventPage {
    const timeOf = this.timeOf(chartTime);
    const page = this.page(q, Math.max(0, Math.floor(q.offset)), timeOf);
    if (page.total === 0) return this.withHeldFrom(page, q.beforeTs, timeOf);
    if (page.rows.length > 0 || page.offset < page.total) return page;
    return this.page(q, Math.max(0, page.total - Math.max(0, Math.floor(q.limit))), timeOf);
  }

  /** A slot's time as beforeTs is given: on the charts' axis with chartTime, else its own ts. */
  private timeOf(chartTime: ChartTime | undefined): (slot: number) => number {
    if (chartTime === undefined) return (slot) => this.ts[slot] as number;
    return (slot) =>
      chartTime(this.sources.name(this.src[slot] as number), this.ts[slot] as number);
  }

  /** An empty page before `beforeTs`, saying so when the events before it left the log. */
  private withHeldFrom(
    page: EventPage,
    beforeTs: number | undefined,
    timeOf: (slot: number) => number,
  ): EventPage {
    if (beforeTs === undefined || this.n === this.count) return page;
    const heldFromTs = this.earliestTs(timeOf);
    return heldFromTs !== null && heldFromTs >= beforeTs ? { ...page, heldFromTs } : page;
  }

  private page(q: EventQuery, offset: number, timeOf: (slot: number) => number): EventPage {
    const newest = this.n - 1;
    const limit = Math.max(0, Math.floor(q.limit));
    const matches = this.matcher(q, timeOf);
    // A name never seen matches nothing.
    if (matches === null)
      return { total: 0, offset, rows: [], newest, ...newerOf(q, 0), ...this.keptOf() };
    const out: EventRow[] = [];
    let total = 0;
    // The k-th newest arrived as n - k: a snapshot up to `upTo` starts at k = n - upTo.
    const firstK = q.upTo === undefined ? 1 : Math.max(1, this.n - Math.floor(q.upTo));
    let newer = 0;
    for (let k = 1; k < firstK && k <= this.count; k += 1) if (matches(this.slotOf(k))) newer += 1;
    for (let k = firstK; k <= this.count; k += 1) {
      const slot = this.slotOf(k);
      if (!matches(slot)) continue;
      if (total >= offset && out.length < limit) out.push({ ...this.decode(slot), n: this.n - k });
      total += 1;
    }
    return { total, offset, rows: out, newest, ...newerOf(q, newer), ...this.keptOf() };
  }

  /** Events held when older ones have left the log (it keeps the newest), for a reader to say. */
  private keptOf(): { kept?: number } {
    return this.n > this.count ? { kept: this.count } : {};
  }

  /** The slot of the k-th newest event. */
  private slotOf(k: number): number {
    return (this.next - k + this.capacity) % this.capacity;
  }

  /** Whether the event in a slot matches q's filters; null when none can (a name never seen). */
  private matcher(
    q: EventQuery,
    timeOf: (slot: number) => number,
  ): ((slot: number) => boolean) | null {
    // A bit per type asked for (a type not known sets a bit no row has).
    let typeMask = 0;
    for (const t of q.types ?? []) typeMask |= 1 << (TYPE_CODES.get(t) ?? 7);
    const src = q.source === undefined || q.source === '' ? -1 : this.sources.find(q.source);
    const med = q.medium === undefined ? -1 : this.media.find(q.medium);
    if (src === undefined || med === undefined) return null;
    const terms = hashTerms(q.hash);
    const match = terms === null ? null : hashMatcher(q.hash);
    const verdict = terms === null ? null : this.hashVerdicts(terms);
    return (slot) => {
      if ((this.flags[slot] as number) & GONE) return false;
      // No type asked for (an empty list) matches nothing, as every unticked box says.
      if (q.types !== undefined && !(typeMask & (1 << (this.type[slot] as number)))) return false;
      if (q.beforeTs !== undefined && !(timeOf(slot) < q.beforeTs)) return false;
      if (src >= 0 && this.src[slot] !== src) return false;
      if (med >= 0 && this.medium[slot] !== med) return false;
      if (match && verdict) {
        if (verdict[slot] === UNDECIDED) {
          const ev = this.decode(slot).event;
          const hit =
            ev.type !== 'AllBlocksCleared' &&
            (ev.block_hashes.some(match) ||
              (ev.type === 'BlockStored' &&
                ev.parent_block_hash !== null &&
                match(ev.parent_block_hash)));
          verdict[slot] = hit ? YES : NO;
        }
        if (verdict[slot] === NO) return false;
      }
      return true;
    };
  }

  /** The earliest event time held (a removed source's rows aside), null when none is. */
  private earliestTs(timeOf: (slot: number) => number): number | null {
    let min: number | null = null;
    for (let i = 0, slot = this.oldest(); i < this.count; i += 1) {
      const ts = timeOf(slot);
      if (!((this.flags[slot] as number) & GONE) && (min === null || ts < min)) min = ts;
      slot = (slot + 1) % this.capacity;
    }
    return min;
  }

  /** The event of a held slot, as it was pushed. */
  /** A held event as its line reads back: its hashes as texts. */
  private decode(slot: number): EventRecord<HashTexts> {
    const flags = this.flags[slot] as number;
    const o = this.off[slot] as number;
    const line =
      flags & LONG
        ? (this.long.get(slot) as string)
        : this.arena.toString('utf8', o, o + (this.len[slot] as number));
    // Its own JSON (toJSON wrote any hashes held as numbers as texts).
    if (flags & OWN_JSON || this.readLine === null)
      return JSON.parse(line) as EventRecord<HashTexts>;
    return this.readLine(line);
  }

  /**
   * The verdicts of a hash query, with the undecided rows its bytes rule out set to NO. A row
   * stays undecided (to be decoded) where its bytes hold a quote and the query's prefix (or an
   * exact key, quoted) outside a key or a known non-hash field, or where it cannot be searched as
   * bytes (a backslash: an escape could spell a hash; a long row). The match itself is decided on
   * the decoded row: the bytes only spare decoding the rows that surely do not match.
   */
  private hashVerdicts(terms: HashTerms): Uint8Array {
    const key = JSON.stringify(terms);
    if (this.verdicts?.key !== key) {
      this.verdicts = { key, of: new Uint8Array(this.capacity) };
    }
    const verdict = this.verdicts.of;
    // A prefix JSON would write escaped, or that is not plain ASCII, is not searched as bytes;
    // nor a hex query of integer hashes (ranges of decimal keys, no text to look for).
    if (!/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(terms.prefix)) return verdict;
    if (terms.hexRanges.length > 0) return verdict;
    const maybe = new Uint8Array(this.capacity);
    const needles = [`"${terms.prefix}`, ...terms.exact.map((k) => `"${k}"`)].map((s) =>
      Buffer.from(s, 'latin1'),
    );
    for (const needle of needles) this.markHits(needle, verdict, maybe, true);
    this.markHits(BACKSLASH, verdict, maybe, false);
    for (const slot of this.long.keys()) maybe[slot] = 1;
    for (let i = 0, slot = this.oldest(); i < this.count; i += 1) {
      if (verdict[slot] === UNDECIDED && (!maybe[slot] || this.type[slot] === CLEARED)) {
        verdict[slot] = NO;
      }
      slot = (slot + 1) % this.capacity;
    }
    return verdict;
  }

  /**
   * Marks the undecided rows whose bytes contain `needle` (a hash's opening quote onwards when
   * `asValue`: only where it can be a hash value). One search of the arena per hit, not per row:
   * rows lie in the arena in arrival order within a lap.
   */
  private markHits(needle: Buffer, verdict: Uint8Array, marks: Uint8Array, asValue: boolean): void {
    const oldest = (this.next - this.count + this.capacity) % this.capacity;
    let hit = -1;
    let lastLap = -1;
    for (let i = 0; i < this.count; i += 1) {
      const slot = (oldest + i) % this.capacity;
      const lap = (this.flags[slot] as number) & LAP;
      // A new lap starts again from the arena's start.
      if (lap !== lastLap) hit = -1;
      lastLap = lap;
      if (verdict[slot] !== UNDECIDED || marks[slot]) continue;
      const o = this.off[slot] as number;
      const end = o + (this.len[slot] as number);
      while (hit < o || (hit < end && hit + needle.length <= end)) {
        if (hit >= o) {
          if (!asValue || this.canBeHash(hit + 1, o, end)) {
            marks[slot] = 1;
            break;
          }
          hit = this.arena.indexOf(needle, hit + 1);
        } else {
          hit = this.arena.indexOf(needle, o);
        }
        if (hit < 0) hit = Number.POSITIVE_INFINITY;
      }
    }
  }

  /**
   * Whether the string whose text starts at `at` (after its quote) can be a hash: not a key (a
   * colon right after its closing quote) and not the value of a field known to hold other text.
   * Unknown shapes count as can-be (this only narrows what is decoded).
   */
  private canBeHash(at: number, start: number, end: number): boolean {
    // Short scans in JS: a native indexOf per hit costs more than the few bytes it reads.
    const a = this.arena;
    let close = at;
    while (close < end && a[close] !== QUOTE) close += 1;
    if (close + 1 < end && a[close + 1] === COLON) return false;
    const before = at - 2;
    if (before < start || a[before] !== COLON) return true;
    // A value after `"key":`: the key's text.
    const keyEnd = before - 1;
    if (a[keyEnd] !== QUOTE) return true;
    let keyStart = keyEnd - 1;
    while (keyStart >= start && a[keyStart] !== QUOTE) keyStart -= 1;
    if (keyStart < start) return true;
    return !TEXT_FIELDS.has(a.toString('latin1', keyStart + 1, keyEnd));
  }

  /**
   * Where a row's bytes go: at `head` while they fit before the arena's end or the oldest row,
   * else at the start (a new lap), else after growing the arena or dropping the oldest rows.
   * -1: longer than a row may be in the arena.
   */
  private place(text: string): number {
    // Most rows: room for the most bytes the text can take, without measuring it.
    const fast = this.room();
    if (fast >= text.length * 3) return this.head;
    return this.placeBytes(Buffer.byteLength(text));
  }

  /** Where a row of `need` bytes goes (see place), or -1. */
  private placeBytes(need: number): number {
    if (need > this.longBytes) return -1;
    for (;;) {
      if (this.room() >= need) return this.head;
      if (this.count > 0 && !this.wrapped() && this.off[this.oldest()]! >= need) {
        this.lap ^= 1;
        this.head = 0;
        return 0;
      }
      if (this.arena.length < this.maxBytes) this.grow(need);
      else if (this.count > 0) this.dropOldest();
      else
        throw new Error(`event ring: a ${need}-byte row does not fit ${this.arena.length} bytes`);
    }
  }

  /** Free bytes from `head` on, before the arena's end or the oldest row. */
  private room(): number {
    if (this.count === 0) {
      this.head = 0;
      return this.arena.length;
    }
    if (this.wrapped()) return (this.off[this.oldest()] as number) - this.head;
    return this.arena.length - this.head;
  }

  /** Whether the oldest row is of the lap before (rows lie at the end and at the start). */
  private wrapped(): boolean {
    return ((this.flags[this.oldest()] as number) & LAP) !== (this.lap ? LAP : 0);
  }

  private oldest(): number {
    return (this.next - this.count + this.capacity) % this.capacity;
  }

  private dropOldest(): void {
    const slot = this.oldest();
    if ((this.flags[slot] as number) & LONG) this.long.delete(slot);
    this.count -= 1;
  }

  /**
   * A larger arena (to the cap) with the held rows copied to its start, oldest first. While the
   * ring fills, the size its rows will take once it is full (their mean length so far, an eighth to
   * spare for the end of a lap): a filling ring grew a quarter at a time, copying every row about
   * four times (a twentieth of the live path's CPU in its first 50,000 events). Doubling instead
   * took 25.6 MB for 50,000 rows that needed just past 12.8. Past that, a quarter larger.
   */
  private grow(need: number): void {
    let size = Math.ceil((this.arena.length * 1.25) / 65_536) * 65_536;
    if (this.count > 0 && this.count < this.capacity) {
      let held = 0;
      for (let i = 0, slot = this.oldest(); i < this.count; i += 1) {
        held += this.len[slot] as number;
        slot = (slot + 1) % this.capacity;
      }
      const full = ((held + need) / (this.count + 1)) * this.capacity * 1.125;
      size = Math.max(size, Math.ceil(full / 65_536) * 65_536);
    }
    const bigger = Buffer.alloc(Math.min(this.maxBytes, Math.max(need, size)));
    // Rows of one lap lie in arrival order, back to back or a newline apart (pushLines): each run
    // of them is copied in one piece, not row by row (a ring of 50,000 rows grows in two copies).
    let at = 0;
    let runFrom = -1;
    let runEnd = -1;
    for (let i = 0, slot = this.oldest(); i < this.count; i += 1) {
      const o = this.off[slot] as number;
      const l = this.len[slot] as number;
      if (runFrom < 0 || o < runEnd || o > runEnd + 1) {
        if (runFrom >= 0) at += this.arena.copy(bigger, at, runFrom, runEnd);
        runFrom = o;
      }
      this.off[slot] = at + o - runFrom;
      this.flags[slot] = (this.flags[slot] as number) & ~LAP;
      runEnd = o + l;
      slot = (slot + 1) % this.capacity;
    }
    if (runFrom >= 0) at += this.arena.copy(bigger, at, runFrom, runEnd);
    this.arena = bigger;
    this.head = at;
    this.lap = 0;
  }
}

/** Fields of an event line whose string values are never hashes. */
const TEXT_FIELDS = new Set([
  'k',
  'source',
  'type',
  'medium',
  'lora_name',
  'kv_cache_spec_kind',
  'locality',
  'ownership',
]);

/** The `newer` of a page asked up to an arrival number: matching events that came after it. */
function newerOf(q: EventQuery, newer: number): { newer?: number } {
  return q.upTo === undefined ? {} : { newer };
}

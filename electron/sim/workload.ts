// An engine-like, deterministic KV cache workload: a GPU block pool with LRU eviction, shared
// system prompts, multi-turn conversations that continue a resident prefix, LoRA requests, a
// CPU offload tier for evicted blocks, and an occasional AllBlocksCleared.
import { createHash } from 'node:crypto';
import type { HashKind } from '../../shared/events';
import { Prng } from './prng';
import type { RawBlockRemoved, RawBlockStored, RawEvent, SimHash, WireFormat } from './types';

export interface WorkloadOptions {
  seed: number;
  /** Ranks share system prompts (seeded by `seed`) but not conversations. */
  rank?: number;
  format: WireFormat;
  hash: HashKind;
  gpuBlocks?: number;
  cpuBlocks?: number;
  blockSize?: number;
  eventsPerBatch?: [number, number];
  /** Mean batches between automatic clears; 0 = never. */
  clearEvery?: number;
  /**
   * Share of requests (0..1) whose already resident blocks are re-announced as BlockStored, as
   * vLLM does with kv_cache_report_mode="full"; default 0.
   */
  reannounce?: number;
  /**
   * Chance (0..1) that a conversation's next turn stays on the rank that served it; otherwise the
   * rank asking takes it over (a router without prefix affinity). Needs `shared`; default 1.
   */
  stickiness?: number;
  /** What the ranks of one engine share: their conversations and one request counter. */
  shared?: SharedTraffic;
}

/** The ranks of one engine: a router may move a conversation from one rank to another. */
export class SharedTraffic {
  round = 0;
  readonly byRank = new Map<number, Conversation[]>();
}

interface Block {
  /** The admit() round that last used it: eviction skips the request being served. */
  pin: number;
  key: string;
  hash: SimHash;
  digest: Buffer;
  tokens: number[];
}

interface Conversation {
  lora: Lora | null;
  blocks: Block[];
}

interface Lora {
  id: number;
  name: string;
}

const LORAS: readonly Lora[] = [
  { id: 1, name: 'sql-lora' },
  { id: 2, name: 'chat-lora-v2' },
  { id: 3, name: 'summarize-lora' },
];
const SYSTEM_PROMPTS = 8;
const MAX_CONVERSATIONS = 24;
const MAX_CONVERSATION_BLOCKS = 128;
const REMOVE_CHUNK = 256;
const ROOT = Buffer.alloc(32);

/** Canonical text key of a hash: decimal for ints, lowercase hex for bytes (as KV Scope keys them). */
export function hashKey(h: SimHash): string {
  return typeof h === 'bigint' ? h.toString(10) : Buffer.from(h).toString('hex');
}

/** Produces the events of successive batches; state changes as events are produced. */
export class Workload {
  readonly gpuBlocks: number;
  readonly cpuBlocks: number;
  readonly blockSize: number;
  private readonly rng: Prng;
  private readonly format: WireFormat;
  private readonly hashKind: HashKind;
  private readonly eventsPerBatch: [number, number];
  private readonly clearEvery: number;
  private readonly seed: number;
  private readonly rank: number;
  private readonly reannounce: number;
  private readonly stickiness: number;
  private readonly shared: SharedTraffic | null;
  /** LRU order: first = least recently used. */
  private readonly gpu = new Map<string, Block>();
  private readonly cpu = new Map<string, Block>();
  private readonly systemPrompts = new Map<string, Block[]>();
  private conversations: Conversation[] = [];
  private queue: RawEvent[] = [];
  private round = 0;

  constructor(opts: WorkloadOptions) {
    this.seed = opts.seed;
    this.rank = opts.rank ?? 0;
    this.reannounce = opts.reannounce ?? 0;
    this.stickiness = opts.stickiness ?? 1;
    this.shared = opts.shared ?? null;
    for (const [name, v] of [
      ['reannounce', this.reannounce],
      ['stickiness', this.stickiness],
    ] as const) {
      if (!(v >= 0 && v <= 1)) throw new Error(`${name} must be a share from 0 to 1, got ${v}`);
    }
    this.shared?.byRank.set(this.rank, this.conversations);
    this.rng = new Prng(opts.seed * 7919 + (opts.rank ?? 0) * 104729 + 1);
    this.format = opts.format;
    this.hashKind = opts.hash;
    this.gpuBlocks = opts.gpuBlocks ?? 2048;
    this.cpuBlocks = opts.cpuBlocks ?? 4096;
    this.blockSize = opts.blockSize ?? 16;
    this.eventsPerBatch = opts.eventsPerBatch ?? [1, 6];
    this.clearEvery = opts.clearEvery ?? 4000;
    const [lo, hi] = this.eventsPerBatch;
    if (!(lo >= 1 && hi >= lo)) throw new Error(`eventsPerBatch must be [min >= 1, max >= min]`);
    if (this.gpuBlocks < 4 * MAX_CONVERSATION_BLOCKS) {
      throw new Error(`gpuBlocks must be at least ${4 * MAX_CONVERSATION_BLOCKS}`);
    }
  }

  /** Blocks resident now in the GPU pool / CPU tier (the workload's own view). */
  get gpuResident(): number {
    return this.gpu.size;
  }

  get cpuResident(): number {
    return this.cpu.size;
  }

  /** The events of the next batch. */
  nextBatch(): RawEvent[] {
    if (this.clearEvery > 0 && this.rng.chance(1 / this.clearEvery)) this.clear();
    const n = this.rng.int(this.eventsPerBatch[0], this.eventsPerBatch[1]);
    while (this.queue.length < n) this.request();
    return this.queue.splice(0, n);
  }

  /** Queue an AllBlocksCleared (after emptying the CPU tier, so the truth is unambiguous). */
  clear(): void {
    const cpuHashes = [...this.cpu.values()].map((b) => b.hash);
    for (let i = 0; i < cpuHashes.length; i += REMOVE_CHUNK) {
      this.queue.push(this.removed(cpuHashes.slice(i, i + REMOVE_CHUNK), 'CPU'));
    }
    this.cpu.clear();
    this.gpu.clear();
    this.queue.push({ type: 'AllBlocksCleared' });
  }

  /** An engine restart: caches empty, nothing queued, conversations forgotten. */
  reset(): void {
    this.gpu.clear();
    this.cpu.clear();
    this.queue = [];
    this.conversations = [];
    this.shared?.byRank.set(this.rank, this.conversations);
  }

  /** One request: a new conversation or the next turn of a running one. */
  private request(): void {
    const fresh = this.conversations.length < 4 || this.rng.chance(0.25);
    if (fresh && this.conversations.length < MAX_CONVERSATIONS) {
      const lora = this.rng.chance(0.15) ? this.rng.pick(LORAS) : null;
      const prompt = Math.floor(this.rng.next() ** 2 * SYSTEM_PROMPTS);
      const conv: Conversation = { lora, blocks: [...this.systemPrompt(prompt, lora)] };
      this.extend(conv, this.rng.int(1, 8));
      this.conversations.push(conv);
      this.admit(conv);
      return;
    }
    const moved = this.stickiness < 1 && this.rng.chance(1 - this.stickiness) && this.takeOver();
    const idx = moved
      ? this.conversations.length - 1
      : this.rng.int(0, this.conversations.length - 1);
    const conv = this.conversations[idx];
    if (!conv) return;
    this.extend(conv, this.rng.int(1, 8));
    this.admit(conv);
    if (conv.blocks.length >= MAX_CONVERSATION_BLOCKS || this.rng.chance(0.08)) {
      this.conversations.splice(idx, 1);
    }
  }

  /** Takes a running conversation over from another rank; false when none has one. */
  private takeOver(): boolean {
    if (!this.shared) return false;
    const others = [...this.shared.byRank].filter(([r, list]) => r !== this.rank && list.length);
    if (others.length === 0) return false;
    const [, list] = this.rng.pick(others);
    const [conv] = list.splice(this.rng.int(0, list.length - 1), 1);
    if (!conv) return false;
    this.conversations.push(conv);
    return true;
  }

  /** A shared system prompt: same tokens for every rank and conversation. */
  private systemPrompt(i: number, lora: Lora | null): Block[] {
    const id = `${i}:${lora?.id ?? 0}`;
    let blocks = this.systemPrompts.get(id);
    if (!blocks) {
      const rng = new Prng(this.seed * 31 + i + 1);
      const n = rng.int(4, 24);
      blocks = [];
      let parent: Block | null = null;
      for (let b = 0; b < n; b++) {
        parent = this.block(parent, lora, this.tokens(rng));
        blocks.push(parent);
      }
      this.systemPrompts.set(id, blocks);
    }
    return blocks;
  }

  private extend(conv: Conversation, n: number): void {
    for (let i = 0; i < n && conv.blocks.length < MAX_CONVERSATION_BLOCKS; i++) {
      conv.blocks.push(this.block(conv.blocks.at(-1) ?? null, conv.lora, this.tokens(this.rng)));
    }
  }

  /** Realistic ids: many small (common tokens), a long tail up to 150000. */
  private tokens(rng: Prng): number[] {
    const out = new Array<number>(this.blockSize);
    for (let i = 0; i < this.blockSize; i++) out[i] = Math.floor(rng.next() ** 3 * 150_001);
    return out;
  }

  /** Chained like vLLM: hash(parent, tokens, extra keys). */
  private block(parent: Block | null, lora: Lora | null, tokens: number[]): Block {
    const h = createHash('sha256').update(parent?.digest ?? ROOT);
    if (lora) h.update(lora.name);
    h.update(Buffer.from(Uint32Array.from(tokens).buffer));
    const digest = h.digest();
    let hash: SimHash;
    if (this.hashKind === 'bytes') hash = new Uint8Array(digest);
    else if (digest[8]! < 2)
      hash = BigInt(digest.readUInt16BE(9)); // a few small ones
    else hash = digest.readBigUInt64BE(0);
    return { pin: 0, key: hashKey(hash), hash, digest, tokens };
  }

  /** Serve a request's blocks: hits are touched, misses stored, LRU victims evicted/offloaded. */
  private admit(conv: Conversation): void {
    const blocks = conv.blocks;
    // Blocks of a conversation that moved are pinned by round: one counter for all ranks.
    const round = this.shared ? ++this.shared.round : ++this.round;
    let missing = 0;
    for (const b of blocks) {
      b.pin = round;
      // A conversation taken over from another rank brings its own Block objects: pin the one
      // this pool holds under the same key too.
      const held = this.gpu.get(b.key);
      if (held) held.pin = round;
      else missing++;
    }
    this.evict(this.gpu.size + missing - this.gpuBlocks, round);
    const hits = blocks.length - missing;
    if (hits > 0 && this.reannounce > 0 && this.rng.chance(this.reannounce)) {
      // Full report mode: the whole prefix is announced, the resident part included.
      this.queue.push(this.stored(blocks, null, conv.lora));
      for (const b of blocks) if (!this.gpu.has(b.key)) this.gpu.set(b.key, b);
      this.touch(blocks);
      return;
    }
    let runStart = -1;
    for (let i = 0; i <= blocks.length; i++) {
      const b = blocks[i];
      const miss = b !== undefined && !this.gpu.has(b.key);
      if (miss && runStart < 0) runStart = i;
      if (!miss && runStart >= 0) {
        this.queue.push(
          this.stored(blocks.slice(runStart, i), blocks[runStart - 1] ?? null, conv.lora),
        );
        runStart = -1;
      }
    }
    for (const b of blocks) if (!this.gpu.has(b.key)) this.gpu.set(b.key, b);
    this.touch(blocks);
  }

  /** Most recent use last; the root is touched last so tails are evicted first, as vLLM does. */
  private touch(blocks: Block[]): void {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      if (this.gpu.delete(b.key)) this.gpu.set(b.key, b);
    }
  }

  private evict(n: number, round: number): void {
    if (n <= 0) return;
    const victims: Block[] = [];
    for (const b of this.gpu.values()) {
      if (victims.length >= n) break;
      if (b.pin !== round) victims.push(b);
    }
    for (const b of victims) this.gpu.delete(b.key);
    this.queue.push(
      this.removed(
        victims.map((b) => b.hash),
        'GPU',
      ),
    );
    this.offload(victims);
  }

  /**
   * Evicted GPU blocks go to the CPU tier, which has its own LRU. Of more than the tier holds, only
   * the last evicted are offloaded: the earlier ones would be pushed out by the same store.
   */
  private offload(victims: Block[]): void {
    const fresh = victims
      .filter((b) => {
        const hit = this.cpu.get(b.key);
        if (hit) {
          this.cpu.delete(b.key);
          this.cpu.set(b.key, hit);
        }
        return !hit;
      })
      .slice(-this.cpuBlocks);
    if (fresh.length === 0) return;
    const over = this.cpu.size + fresh.length - this.cpuBlocks;
    if (over > 0) {
      const gone: Block[] = [];
      for (const b of this.cpu.values()) {
        if (gone.length >= over) break;
        gone.push(b);
      }
      for (const b of gone) this.cpu.delete(b.key);
      this.queue.push(
        this.removed(
          gone.map((b) => b.hash),
          'CPU',
        ),
      );
    }
    for (const b of fresh) this.cpu.set(b.key, b);
    // The offload connector publishes its stores without tokens or parent (as vLLM's does).
    this.queue.push({
      type: 'BlockStored',
      block_hashes: fresh.map((b) => b.hash),
      parent_block_hash: null,
      token_ids: [],
      block_size: this.blockSize,
      lora_id: null,
      medium: 'CPU',
      lora_name: null,
      extra_keys: null,
      group_idx: null,
      kv_cache_spec_kind: null,
      kv_cache_spec_sliding_window: null,
    });
  }

  private stored(run: Block[], parent: Block | null, lora: Lora | null): RawBlockStored {
    const hybrid = this.format === 'map';
    return {
      type: 'BlockStored',
      block_hashes: run.map((b) => b.hash),
      parent_block_hash: parent?.hash ?? null,
      token_ids: run.flatMap((b) => b.tokens),
      block_size: this.blockSize,
      lora_id: lora?.id ?? null,
      medium: 'GPU',
      lora_name: lora?.name ?? null,
      extra_keys: hybrid ? run.map(() => (lora ? [lora.name] : null)) : null,
      group_idx: hybrid ? 0 : null,
      kv_cache_spec_kind: hybrid ? 'full_attention' : null,
      kv_cache_spec_sliding_window: null,
    };
  }

  private removed(hashes: SimHash[], medium: string): RawBlockRemoved {
    const group = this.format === 'map' && medium === 'GPU' ? 0 : null;
    return { type: 'BlockRemoved', block_hashes: hashes, medium, group_idx: group };
  }
}

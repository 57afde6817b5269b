import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encode } from '@msgpack/msgpack';
import { Publisher } from 'zeromq';
import { encodeSeq } from '../../electron/wire/message';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimPublisher } from '../../electron/sim/publisher';
import type { PublishedBatch, RawEvent, SimHash, SimOptions } from '../../electron/sim/types';
import { CLI as BUILT_CLI, ensureBuilt, ROOT } from '../support/built-app';
import { gapLines } from '../support/capture-gap-lines';

// KVSCOPE_CLI lets a developer point at another bundle; by default the built one is tested.
const CLI = process.env.KVSCOPE_CLI ?? BUILT_CLI;

beforeAll(() => {
  if (process.env.KVSCOPE_CLI === undefined) ensureBuilt();
}, 180_000);

const open: SimPublisher[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; `until` (optional) is called with the stdout so far and may return true to send `signal`. */
function runCli(
  args: string[],
  until?: (out: string, err: string) => boolean,
  signal: NodeJS.Signals = 'SIGINT',
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const check = (): void => {
      if (until && !signalled && until(stdout, stderr)) {
        signalled = true;
        child.kill(signal);
      }
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      check();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      check();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function startSim(
  opts: Partial<SimOptions>,
): Promise<{ sim: SimPublisher; truth: Map<number, PublishedBatch> }> {
  const sim = await SimPublisher.start({
    format: 'map',
    hash: 'int',
    rate: 200,
    seed: 11,
    ...opts,
  });
  open.push(sim);
  const truth = new Map<number, PublishedBatch>();
  sim.onBatch((b) => truth.set(b.seq, b));
  return { sim, truth };
}

const hashText = (h: SimHash): string =>
  typeof h === 'bigint' ? h.toString(10) : JSON.stringify(Buffer.from(h).toString('hex'));

/** The exact text the capture must print for an event's hashes. */
function expectedHashes(e: RawEvent): { hashes: string | null; parent: string | null } {
  if (e.type === 'AllBlocksCleared') return { hashes: null, parent: null };
  const hashes = `[${e.block_hashes.map(hashText).join(',')}]`;
  if (e.type === 'BlockRemoved') return { hashes, parent: null };
  return { hashes, parent: e.parent_block_hash === null ? 'null' : hashText(e.parent_block_hash) };
}

function checkAgainstTruth(
  stdout: string,
  truth: Map<number, PublishedBatch>,
): { bigSeen: boolean } {
  const lines = stdout.trim().split('\n');
  let bigSeen = false;
  let prevSeq = -1;
  let idx = 0;
  for (const line of lines) {
    const obj = JSON.parse(line) as {
      seq: number;
      type: string;
      dp_rank: number;
      ts: number;
      token_count?: number;
    };
    if (obj.seq !== prevSeq) idx = 0;
    expect(obj.seq).toBeGreaterThanOrEqual(prevSeq);
    prevSeq = obj.seq;
    const batch = truth.get(obj.seq);
    expect(batch, `seq ${obj.seq} was published`).toBeDefined();
    const ev = batch!.events[idx++]!;
    expect(obj.type).toBe(ev.type);
    expect(obj.dp_rank).toBe(0);
    expect(obj.ts).toBe(batch!.ts);
    const want = expectedHashes(ev);
    if (want.hashes !== null) {
      expect(line).toContain(`"block_hashes":${want.hashes}`);
      for (const h of (ev as { block_hashes: SimHash[] }).block_hashes) {
        if (typeof h === 'bigint' && h >= 2n ** 63n) bigSeen = true;
      }
    }
    if (want.parent !== null) expect(line).toContain(`"parent_block_hash":${want.parent}`);
    if (ev.type === 'BlockStored') expect(obj.token_count).toBe(ev.token_ids.length);
  }
  return { bigSeen };
}

function expectNoTokens(text: string, truth: Map<number, PublishedBatch>): void {
  expect(text).not.toContain('token_ids');
  for (const b of truth.values()) {
    for (const e of b.events) {
      if (e.type === 'BlockStored' && e.token_ids.length >= 8)
        expect(text).not.toContain(e.token_ids.join(','));
    }
  }
}

const SUMMARY =
  /^# summary \{"messages":(\d+),"events":(\d+),"gaps":(\d+),"recovered":(\d+),"lost":(\d+),"duplicates":(\d+),"resets":(\d+),"undecoded":(\d+),"event_errors":(\d+),"replay_rejected":(\d+)\}$/;

/** `capture --json --max max` of the simulator's first rank. */
const captureJson = (sim: SimPublisher, max: number): Promise<Run> =>
  runCli(['capture', '--endpoint', sim.ranks[0]!.pubEndpoint, '--json', '--max', String(max)]);

/** The summary line, which must be the last line on stderr. */
function summaryOf(stderr: string): Record<string, number> {
  const last = stderr.trimEnd().split('\n').at(-1) ?? '';
  expect(last).toMatch(SUMMARY);
  return JSON.parse(last.slice('# summary '.length)) as Record<string, number>;
}

describe('kvscope capture (built CLI) against the simulator', () => {
  for (const format of ['array', 'map'] as const) {
    for (const hash of ['int', 'bytes'] as const) {
      it(`prints every event with exact hashes, seq and dp_rank, and no token ids (${format}, ${hash})`, async () => {
        const { sim, truth } = await startSim({ format, hash });
        const r = await captureJson(sim, 60);
        expect(r.code).toBe(0);
        const lines = r.stdout.trim().split('\n');
        expect(lines).toHaveLength(60);
        const { bigSeen } = checkAgainstTruth(r.stdout, truth);
        if (hash === 'int') expect(bigSeen, 'some hash above 2^63 was printed').toBe(true);
        else expect(r.stdout).toMatch(/"block_hashes":\["[0-9a-f]{64}"/);
        expectNoTokens(r.stdout + r.stderr, truth);
      });
    }
  }

  it('prints undecodable payloads as UNDECODED lines with their size, in seq order', async () => {
    const { sim, truth } = await startSim({ faults: { garbageEvery: 4 } });
    const r = await captureJson(sim, 40);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const und = lines.filter((l) => l.includes('"UNDECODED"'));
    expect(und.length).toBeGreaterThan(0);
    // --max counts events, as the seed script's did: the undecoded lines come on top.
    expect(lines.length - und.length).toBe(40);
    expect(r.stderr).toContain(`done: 40 events printed (and ${und.length} undecoded lines)`);
    for (const l of und) {
      const o = JSON.parse(l) as { bytes: number; error: string; seq: number };
      expect(o.bytes).toBe(truth.get(o.seq)!.payload.byteLength);
      expect(o.error.length).toBeGreaterThan(0);
    }
  });

  it('prints an EVENT_ERROR line per event that could not be decoded, so analyze finds no gap', async () => {
    const pub = new Publisher();
    await pub.bind('tcp://127.0.0.1:0');
    const endpoint = pub.lastEndpoint!;
    const stored = (h: number) => ({
      type: 'BlockStored',
      block_hashes: [h],
      parent_block_hash: null,
      token_ids: [1, 2],
      block_size: 2,
      medium: 'GPU',
    });
    // seq 1: an unusable ts; seq 2: a good event and an unknown one; seq 3: only an unknown one.
    const batches = [
      [100, [stored(1)]],
      [Number.NaN, [stored(2)]],
      [102, [stored(3), { type: 'Bogus' }]],
      [103, [{ type: 'Bogus' }]],
      [104, [stored(4)]],
    ];
    // Sent once the capture says it is connected (and ZeroMQ's subscription has had time to
    // reach the publisher): --max 3 ends it at seq 4, the last good event.
    let sent: Promise<void> | null = null;
    const send = async (): Promise<void> => {
      await new Promise((r) => setTimeout(r, 300));
      for (const [i, b] of batches.entries())
        await pub.send(['kv-events', encodeSeq(BigInt(i)), Buffer.from(encode([b[0], b[1], 0]))]);
    };
    const r = await runCli(
      ['capture', '--endpoint', endpoint, '--json', '--max', '3'],
      (_, err) => {
        if (sent === null && err.includes('# connected')) sent = send();
        return false;
      },
    );
    await sent;
    pub.close();
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const errors = lines.filter((l) => l.type === 'EVENT_ERROR');
    expect(errors.map((e) => [e.seq, e.idx])).toEqual([
      [1, 0],
      [2, 1],
      [3, 0],
    ]);
    expect(String(errors[0]?.error)).toMatch(/ts is NaN/);
    expect(summaryOf(r.stderr).event_errors).toBe(3);
    const file = path.join(os.tmpdir(), `kvscope-event-errors-${process.pid}.jsonl`);
    writeFileSync(file, r.stdout);
    try {
      const a = await runCli(['analyze', '--no-cache', '--json', file]);
      const input = (JSON.parse(a.stdout) as { input: Record<string, number> }).input;
      expect(input).toMatchObject({ gaps: 0, lost_batches: 0, event_errors: 3, events: 3 });
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('recovers dropped batches through replay and prints them in seq order with the rest', async () => {
    const { sim, truth } = await startSim({
      replay: true,
      faults: { dropFromPub: (seq) => seq % 10n === 5n },
    });
    const r = await runCli([
      'capture',
      '--endpoint',
      sim.ranks[0]!.pubEndpoint,
      '--replay-endpoint',
      sim.ranks[0]!.replayEndpoint!,
      '--json',
      '--max',
      '120',
    ]);
    expect(r.code).toBe(0);
    const seqs = [
      ...new Set(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { seq: number }).seq),
      ),
    ];
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[i - 1]! + 1);
    expect(seqs.some((s) => s % 10 === 5)).toBe(true);
    expect(r.stderr).toMatch(/gap: seq \d+\.\.\d+ \(1 missing\): replay recovered 1, lost 0/);
    checkAgainstTruth(r.stdout, truth);
    // --max ends it too: the summary counts what the source took in. Every gap within what was
    // printed is recovered. Past it, the live batches held behind a replay still on its way when
    // --max was reached are given up by closing, and their holes counted lost: one or several (a
    // busy machine answers slowly while a batch is dropped every 50 ms), all past the last seq
    // printed.
    const printed = Math.max(...seqs);
    const gaps = gapLines(r.stderr);
    expect(gaps.filter((g) => g.from <= printed && g.lost > 0)).toEqual([]);
    const sum = summaryOf(r.stderr);
    expect(sum.gaps).toBe(gaps.length);
    expect(sum.recovered).toBe(gaps.reduce((n, g) => n + g.recovered, 0));
    expect(sum.lost).toBe(gaps.reduce((n, g) => n + g.lost, 0));
    expect((sum.recovered ?? 0) + (sum.lost ?? 0)).toBe(sum.gaps);
    expect(sum.events).toBeGreaterThanOrEqual(120);
  });

  it('counts nothing past --max in its summary, though a fast stream queues more', async () => {
    const { sim, truth } = await startSim({ rate: 20_000 });
    const r = await captureJson(sim, 3000);
    expect(r.code).toBe(0);
    const seqs = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs).toHaveLength(3000);
    const last = seqs.at(-1)!;
    const sum = summaryOf(r.stderr);
    // The messages handled are the batches printed (each has events); the events counted go past
    // --max only by the rest of the batch it was reached in.
    expect(sum.messages).toBe(new Set(seqs).size);
    expect(sum.events).toBeLessThanOrEqual(
      3000 + truth.get(last)!.events.length - seqs.filter((s) => s === last).length,
    );
    expect(r.stderr).toContain(`done: 3000 events printed; ${sum.messages} messages`);
  });

  it('says one of a thing in the singular in its last lines ("1 message", not "1 messages")', async () => {
    const { sim } = await startSim({});
    const r = await captureJson(sim, 1);
    expect(r.code).toBe(0);
    expect(summaryOf(r.stderr).messages).toBe(1);
    expect(r.stderr).toMatch(
      /done: 1 event printed; 1 message, 0 gaps \(0 recovered, 0 lost\), 0 resets, 0 duplicates, 0 undecoded/,
    );
  });

  it('prints readable lines without --json and stops at --max', async () => {
    const { sim } = await startSim({ format: 'array' });
    const r = await runCli(['capture', '--endpoint', sim.ranks[0]!.pubEndpoint, '--max', '7']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(
      /^\[1\] seq=\d+ rank=0 ts=[\d.]+ (BlockStored|BlockRemoved|AllBlocksCleared)/,
    );
    expect(r.stderr).toMatch(/subscribed to tcp:\/\/127\.0\.0\.1:\d+ topic=""/);
  });

  it('exits 0 on SIGINT with every printed line complete', async () => {
    const { sim, truth } = await startSim({});
    const r = await runCli(
      ['capture', '--endpoint', sim.ranks[0]!.pubEndpoint, '--json'],
      (out) => out.split('\n').length > 10,
    );
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    checkAgainstTruth(r.stdout, truth);
    expect(r.stderr).toMatch(/done: \d+ events printed/);
    const sum = summaryOf(r.stderr);
    expect(sum.events).toBe(r.stdout.trim().split('\n').length);
    expect([sum.gaps, sum.lost, sum.resets, sum.undecoded, sum.replay_rejected]).toEqual([
      0, 0, 0, 0, 0,
    ]);
  });

  it('ends with the summary line after SIGTERM too', async () => {
    const { sim } = await startSim({ faults: { garbageEvery: 5 } });
    const r = await runCli(
      ['capture', '--endpoint', sim.ranks[0]!.pubEndpoint, '--json'],
      (out) => out.split('\n').length > 20,
      'SIGTERM',
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const sum = summaryOf(r.stderr);
    const undecoded = lines.filter((l) => l.includes('"UNDECODED"')).length;
    expect(sum.undecoded).toBe(undecoded);
    expect(sum.events).toBe(lines.length - undecoded);
    expect(sum.messages).toBeGreaterThan(0);
  });

  it('says so on stderr when nothing arrives on a wrong topic', async () => {
    const { sim } = await startSim({ topic: 'kv-events' });
    const r = await runCli(
      [
        'capture',
        '--endpoint',
        sim.ranks[0]!.pubEndpoint,
        '--topic',
        'nope',
        '--stall-after',
        '0.3',
      ],
      (_out, err) => err.includes('but no events for'),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/is the topic right/);
    expect(r.stderr).toMatch(/done: 0 events printed; 0 messages/);
    expect(summaryOf(r.stderr)).toEqual({
      messages: 0,
      events: 0,
      gaps: 0,
      recovered: 0,
      lost: 0,
      duplicates: 0,
      resets: 0,
      undecoded: 0,
      event_errors: 0,
      replay_rejected: 0,
    });
  });
});

/** A data-parallel simulator on consecutive ports (PUB base..base+dp-1, replay after them). */
async function startDpSim(
  dp: number,
  opts: Partial<SimOptions>,
): Promise<{ sim: SimPublisher; truth: Map<string, PublishedBatch> }> {
  // Consecutive ports cannot be ephemeral: try random bases until one binds.
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    try {
      const sim = await SimPublisher.start({
        format: 'map',
        hash: 'int',
        rate: 200,
        seed: 11,
        dp,
        port,
        replay: port + dp,
        ...opts,
      });
      open.push(sim);
      const truth = new Map<string, PublishedBatch>();
      sim.onBatch((b) => truth.set(`${b.rank}:${b.seq}`, b));
      return { sim, truth };
    } catch (e) {
      if (attempt >= 20) throw e;
    }
  }
}

describe('kvscope capture --dp (built CLI)', () => {
  it('subscribes rank r on the base port + r, replays each rank on its own port, and prints each line with its dp_rank', async () => {
    const { sim, truth } = await startDpSim(2, {
      faults: { dropFromPub: (seq, rank) => rank === 1 && seq % 10n === 5n },
    });
    expect(sim.ranks[1]!.pubEndpoint).not.toBe(sim.ranks[0]!.pubEndpoint);
    // Until both ranks printed and rank 1 recovered a batch (one rank may join well before the other).
    const r = await runCli(
      [
        'capture',
        '--endpoint',
        sim.ranks[0]!.pubEndpoint,
        '--replay-endpoint',
        sim.ranks[0]!.replayEndpoint!,
        '--dp',
        '2',
        '--json',
      ],
      (out, err) =>
        /# rank 1: gap: .*replay recovered 1, lost 0/.test(err) &&
        out.includes('"dp_rank":0') &&
        out.includes('"dp_rank":1'),
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`subscribed to ${sim.ranks[1]!.pubEndpoint}`);
    expect(r.stderr).toContain(`replay=${sim.ranks[1]!.replayEndpoint!}`);
    const lines = r.stdout.trim().split('\n');
    const next = new Map<string, number>();
    const prevSeq = [-1, -1];
    for (const line of lines) {
      const o = JSON.parse(line) as { seq: number; dp_rank: number; type: string; ts: number };
      const key = `${o.dp_rank}:${o.seq}`;
      const batch = truth.get(key);
      expect(batch, `rank ${o.dp_rank} published seq ${o.seq}`).toBeDefined();
      // Per rank, seqs are in order (the replayed ones in their place).
      expect(o.seq).toBeGreaterThanOrEqual(prevSeq[o.dp_rank]!);
      prevSeq[o.dp_rank] = o.seq;
      const idx = next.get(key) ?? 0;
      next.set(key, idx + 1);
      const ev = batch!.events[idx]!;
      expect(o.type).toBe(ev.type);
      expect(o.ts).toBe(batch!.ts);
      const want = expectedHashes(ev);
      if (want.hashes !== null) expect(line).toContain(`"block_hashes":${want.hashes}`);
    }
    const ranks = new Set(lines.map((l) => (JSON.parse(l) as { dp_rank: number }).dp_rank));
    expect([...ranks].sort()).toEqual([0, 1]);
    // Rank 1's dropped batches came back through rank 1's replay port.
    expect(r.stderr).toMatch(
      /# rank 1: gap: seq \d+\.\.\d+ \(1 missing\): replay recovered 1, lost 0/,
    );
    expect(r.stderr).not.toMatch(/# rank 0: gap/);
    const sum = summaryOf(r.stderr);
    // Each gap is one batch; a replay still open when Ctrl-C ends the capture counts it lost.
    expect(sum.recovered).toBeGreaterThan(0);
    expect(sum.recovered! + sum.lost!).toBe(sum.gaps);
    expect(sum.events).toBeGreaterThanOrEqual(lines.length);
  });

  it('refuses --dp 0 with a message naming the flag', async () => {
    const r = await runCli(['capture', '--endpoint', 'tcp://127.0.0.1:5557', '--dp', '0']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--dp must be a whole number from 1 to 256, got "0"/);
  });
});

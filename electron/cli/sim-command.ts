// `kvscope sim`: a simulated vLLM engine publishing KV cache events, for demos and tests.
import type { Command } from 'commander';
import { SimPublisher } from '../sim/publisher';
import type { SimOptions } from '../sim/types';
import { PROFILE_LIMITS, rankPortsOverlap } from '../../shared/profile-rules';

/** The PUB socket's send high-water mark the sim runs with (vLLM's default hwm). */
const PUB_HWM = 100_000;
/** On Ctrl-C, how long ZeroMQ has to deliver what is queued before the process ends. */
const CLOSE_LINGER_MS = 2000;

const intFormat = new Intl.NumberFormat('en-US');
const int0 = (n: number): string => intFormat.format(n);

interface SimFlags {
  host: string;
  port: string;
  replayPort?: string;
  replay: boolean;
  format: string;
  hash: string;
  dp: string;
  rate: string;
  seed: string;
  topic: string;
  connect?: string;
  gpuBlocks: string;
  cpuBlocks: string;
  reannounce: string;
  stickiness: string;
  clockOffset: string;
}

/** Seconds a sim's clock may be set off the wall clock (ten years either way). */
const MAX_CLOCK_OFFSET_S = 10 * 365 * 86_400;

function share(name: string, v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !(n >= 0 && n <= 1)) {
    throw new Error(`--${name} must be a share from 0 to 1 (e.g. 0.25), got "${v}"`);
  }
  return n;
}

function int(name: string, v: string, lo: number, hi: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < lo || n > hi) {
    throw new Error(`--${name} must be an integer from ${lo} to ${hi}, got "${v}"`);
  }
  return n;
}

/**
 * Seconds to add to every ts: ahead at most MAX_CLOCK_OFFSET_S, behind as far as the epoch time
 * now (minus it: an engine stamping seconds since its start), so that no ts is before 0.
 */
function clockOffset(v: string): number {
  const n = Number(v);
  const behindMost = Math.floor(Date.now() / 1000);
  if (v.trim() === '' || !Number.isFinite(n) || n > MAX_CLOCK_OFFSET_S || n < -behindMost) {
    throw new Error(
      `--clock-offset must be a number of seconds: ahead at most ${MAX_CLOCK_OFFSET_S}, behind (negative) at most the epoch time now, -${behindMost} (an engine stamping seconds since its start), got "${v}"`,
    );
  }
  return n;
}

/** Turn the command-line flags into SimOptions, with a clear error for each bad value. */
export function simOptionsFromFlags(f: SimFlags): SimOptions {
  if (f.format !== 'array' && f.format !== 'map') {
    throw new Error(
      `--format must be "array" (legacy) or "map" (vLLM since mid-2026), got "${f.format}"`,
    );
  }
  if (f.hash !== 'int' && f.hash !== 'bytes') {
    throw new Error(`--hash must be "int" or "bytes", got "${f.hash}"`);
  }
  const rate = Number(f.rate);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 100_000) {
    throw new Error(
      `--rate must be a number of batches per second above 0 (at most 100000), got "${f.rate}"`,
    );
  }
  if (f.connect !== undefined && !/^tcp:\/\/[^:]+:\d+$/.test(f.connect)) {
    throw new Error(`--connect must look like tcp://host:port, got "${f.connect}"`);
  }
  const port = int('port', f.port, 0, 65535);
  // As many ranks as a connection takes (serve, capture, the form).
  const dp = int('dp', f.dp, 1, PROFILE_LIMITS.dpRanksMax);
  if (port > 0 && port + dp - 1 > 65535) {
    throw new Error(
      `--port ${port} with --dp ${dp}: rank ${dp - 1} would publish on port ${port + dp - 1}, past 65535 (rank r uses port + r)`,
    );
  }
  let replay: number | false = false;
  if (f.replay) {
    // vLLM's convention is 5557 / 5558; with several ranks the PUB range would cover 5558.
    replay =
      f.replayPort !== undefined
        ? int('replay-port', f.replayPort, 0, 65535)
        : port === 0
          ? 0
          : port + dp;
  }
  if (replay !== false && replay > 0 && f.connect === undefined && port > 0) {
    if (rankPortsOverlap(port, replay, dp)) {
      throw new Error(
        `--replay-port ${replay} overlaps the PUB ports ${port}..${port + dp - 1} (rank r uses port + r): pick --replay-port ${port + dp} or higher`,
      );
    }
  }
  return {
    host: f.host,
    port,
    bind: f.connect === undefined,
    connectTo: f.connect,
    replay,
    format: f.format,
    hash: f.hash,
    dp,
    rate,
    seed: int('seed', f.seed, 0, 2 ** 31 - 1),
    topic: f.topic,
    gpuBlocks: int('gpu-blocks', f.gpuBlocks, 512, 10_000_000),
    cpuBlocks: int('cpu-blocks', f.cpuBlocks, 1, 10_000_000),
    reannounce: share('reannounce', f.reannounce),
    stickiness: share('stickiness', f.stickiness),
    clockOffsetS: clockOffset(f.clockOffset),
    pubHighWaterMark: PUB_HWM,
  };
}

/** Register `kvscope sim`. */
export function registerSim(program: Command): void {
  program
    .command('sim')
    .description(
      "Publish a simulated vLLM engine's KV cache events (for demos and tests) until Ctrl-C.",
    )
    .option('--host <host>', 'interface to bind on', '127.0.0.1')
    .option('--port <port>', 'PUB port (rank r uses port + r; 0 = ephemeral)', '5557')
    .option(
      '--replay-port <port>',
      'ROUTER replay port (rank r uses port + r); default: after the PUB ports',
    )
    .option('--no-replay', 'run without a replay endpoint')
    .option('--format <format>', 'event encoding: array (legacy) or map', 'map')
    .option('--hash <kind>', 'block hashes: int (u64) or bytes (32-byte digests)', 'int')
    .option('--dp <n>', 'data-parallel ranks', '1')
    .option('--rate <r>', 'batches per second per rank', '50')
    .option('--seed <s>', 'workload seed (same seed, same events)', '1')
    .option('--topic <t>', 'topic frame', 'kv-events')
    .option(
      '--gpu-blocks <n>',
      'GPU pool size in blocks, 512 or more (LRU eviction past it)',
      '2048',
    )
    .option('--cpu-blocks <n>', 'CPU offload tier size in blocks', '4096')
    .option(
      '--reannounce <share>',
      'share of requests whose resident blocks are re-announced (kv_cache_report_mode="full")',
      '0',
    )
    .option(
      '--stickiness <share>',
      "with --dp > 1: chance that a conversation's next turn stays on its rank",
      '1',
    )
    .option(
      '--clock-offset <sec>',
      "seconds added to the wall clock in every batch's ts: an engine whose clock is off (or not epoch time)",
      '0',
    )
    .option(
      '--connect <url>',
      'connect the PUB socket out to a bound subscriber (tcp://host:port) instead of binding',
    )
    .action(async (flags: SimFlags) => {
      const opts = simOptionsFromFlags(flags);
      const sim = await SimPublisher.start(opts);
      const log = (s: string): boolean => process.stderr.write(`kvscope sim: ${s}\n`);
      sim.ranks.forEach((r, i) => {
        const how = opts.bind ? 'bound' : 'connected';
        log(`rank ${i}: PUB ${how} ${r.pubEndpoint}, replay ${r.replayEndpoint ?? 'off'}`);
      });
      log(
        `topic "${opts.topic}", format ${opts.format}, ${opts.hash} hashes, ${opts.rate} batches/s per rank, seed ${opts.seed}. Ctrl-C stops.`,
      );
      // What the sim knows is what ZeroMQ took: a PUB socket drops what a subscriber cannot take
      // past its high-water mark and tells the sender nothing (zmq_socket(3)).
      log(
        `"handed to ZeroMQ" below means queued in its PUB socket: a subscriber more than ${int0(PUB_HWM)} messages behind loses the rest there, uncounted here (it sees them as gaps).`,
      );
      const counts = (): string => {
        const t = sim.stats().total;
        const res = Object.entries(t.resident)
          .map(([m, n]) => `${m} ${int0(n)}`)
          .join(', ');
        return `${int0(t.batches)} batches built, ${int0(sim.handedToZmq())} handed to ZeroMQ; they stored ${int0(t.storedBlocks)} blocks, removed ${int0(t.removedBlocks)}, resident ${res || 'none'}`;
      };
      const report = setInterval(() => log(counts()), 10_000);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      clearInterval(report);
      // Every batch built is handed to ZeroMQ, which has a moment to deliver them: the counts
      // printed are then what a subscriber that keeps up received (they counted batches that
      // never left, and ZeroMQ dropped its queue's tail at exit).
      await sim.close(CLOSE_LINGER_MS);
      log(`stopped: ${counts()}`);
      process.exitCode = 0;
    });
}

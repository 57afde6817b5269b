// CPU of a live process by kind of thread, read from /proc: where a consumer's time goes (its
// JavaScript, ZeroMQ's I/O thread, V8's helpers), not only how much of it there is.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { median } from './bench-result';

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU of a process in ms: every thread's, and the split by kind of thread (see threadKind). */
export interface Cpu {
  total: number;
  /** Empty where the threads could not be read apart (no schedstat). */
  byThread: Partial<Record<ThreadKind, number>>;
}

export type ThreadKind = 'main' | 'zeromq' | 'other';

/**
 * The main thread (JavaScript, and zeromq.js's receive), ZeroMQ's own threads (its I/O thread
 * reads the socket and splits frames) or the rest (V8's helpers: GC, compilers; libuv's pool).
 */
function threadKind(pid: number, tid: string): ThreadKind {
  if (tid === String(pid)) return 'main';
  const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8');
  return comm.startsWith('ZMQbg') ? 'zeromq' : 'other';
}

/**
 * CPU time of a live process in ms, every thread included: the sum of its threads' schedstat
 * (ns), or utime + stime from its stat (clock ticks) where schedstat is missing.
 */
export function cpuMs(pid: number): Cpu {
  try {
    const byThread: Partial<Record<ThreadKind, number>> = {};
    let total = 0;
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      const ms =
        Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      const kind = threadKind(pid, t);
      byThread[kind] = (byThread[kind] ?? 0) + ms;
      total += ms;
    }
    return { total, byThread };
  } catch {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { total: ((Number(f[11]) + Number(f[12])) / CLK_TCK) * 1000, byThread: {} };
  }
}

/**
 * CPU spent between two readings of one process. A thread that ends in between takes its time out
 * of both sums (as it did out of the total before the split): the streams' threads all live on.
 */
export function cpuSince(before: Cpu, after: Cpu): Cpu {
  const byThread: Partial<Record<ThreadKind, number>> = {};
  for (const k of Object.keys(after.byThread) as ThreadKind[])
    byThread[k] = (after.byThread[k] ?? 0) - (before.byThread[k] ?? 0);
  return { total: after.total - before.total, byThread };
}

/** A split by kind of thread in ms (cpuSince's byThread) as µs per one of `n` messages or events. */
export function usPer(byThread: Cpu['byThread'], n: number): Cpu['byThread'] {
  const out: Cpu['byThread'] = {};
  for (const [kind, ms] of Object.entries(byThread)) out[kind as ThreadKind] = (ms * 1000) / n;
  return out;
}

/** The medians of rounds' CPU per message by kind of thread (usPer's), "main / zeromq / other" in µs. */
export function threadSplit(rounds: Partial<Record<ThreadKind, number>>[]): string {
  const kinds: ThreadKind[] = ['main', 'zeromq', 'other'];
  if (rounds.some((r) => r.main === undefined)) return 'not read (no schedstat)';
  return kinds.map((k) => median(rounds.map((r) => r[k] ?? 0)).toFixed(1)).join(' / ');
}

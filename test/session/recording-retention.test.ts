// Recordings pile up (one per start): the folder keeps within a budget, oldest first, never the
// one being written; the list the app shows and its open path.
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileStamp, Recording } from '../../electron/session/recording';
import {
  enforceRecordingBudget,
  listRecordingFiles,
  parseByteSize,
  recordingStartedAt,
} from '../../electron/session/recording-retention';
import { KvScopeService } from '../../electron/service/service';
import { parseArgs } from '../../shared/schemas';
import { stored } from '../model/helpers';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kvscope-retention-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-01T12:00:00.000Z');

/** A file named as a recording started `daysAgo` days before NOW, last written then too. */
async function fakeRecording(folder: string, daysAgo: number, bytes: number): Promise<string> {
  const at = new Date(NOW - daysAgo * DAY);
  const name = `recording-${fileStamp(at)}-abc123.kvscope.jsonl.gz`;
  const path = join(folder, name);
  await writeFile(path, Buffer.alloc(bytes, 1));
  await utimes(path, at, at);
  return name;
}

describe('recordings retention', () => {
  it('removes the oldest recordings first until the folder fits its budget, never the current one nor other files', async () => {
    const names = [];
    for (const days of [5, 4, 3, 2]) names.push(await fakeRecording(dir, days, 1000));
    // The one being written: older than all by name, and over budget on its own terms.
    const current = await fakeRecording(dir, 9, 1500);
    await writeFile(join(dir, 'notes.txt'), 'not a recording');
    const result = await enforceRecordingBudget(dir, 3000, join(dir, current), NOW);
    expect(result.removed).toEqual([names[0], names[1], names[2]]);
    expect(result.keptBytes).toBe(2500);
    expect((await readdir(dir)).sort()).toEqual([current, names[3], 'notes.txt'].sort());
  });

  it('keeps a recording written in the last minutes (another KV Scope may be writing it)', async () => {
    const old = await fakeRecording(dir, 3, 1000);
    const busy = await fakeRecording(dir, 2, 1000);
    await utimes(join(dir, busy), new Date(NOW - 60_000), new Date(NOW - 60_000));
    const result = await enforceRecordingBudget(dir, 100, join(dir, 'none'), NOW);
    expect(result.removed).toEqual([old]);
    expect(await readdir(dir)).toEqual([busy]);
  });

  it('reads the start time from a recording name and ignores names that are not recordings', () => {
    const at = new Date('2026-11-30T08:07:06.005Z');
    expect(recordingStartedAt(`recording-${fileStamp(at)}-0a1b2c.kvscope.jsonl.gz`)).toEqual(at);
    expect(recordingStartedAt('recording-yesterday.kvscope.jsonl.gz')).toBeNull();
    expect(recordingStartedAt(`saved-${fileStamp(at)}-0a1b2c.kvscope.jsonl.gz`)).toBeNull();
  });

  it('takes a budget as 2GB, 500 MB or bytes, and says what it accepts otherwise', () => {
    expect(parseByteSize('2GB')).toBe(2 * 1024 ** 3);
    expect(parseByteSize('500 MB')).toBe(500 * 1024 ** 2);
    expect(parseByteSize('1.5g')).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize('1048576')).toBe(1048576);
    expect(() => parseByteSize('lots')).toThrow(/write it as 2GiB, 500MiB or a number of bytes/);
    expect(() => parseByteSize('12')).toThrow(/at least 1MiB/);
  });

  it('the service keeps the folder in budget at start and lists the recordings newest first, the current one marked', async () => {
    const recordings = join(dir, 'recordings');
    await mkdir(recordings);
    const oldest = await fakeRecording(recordings, 30, 2 * 1024 * 1024);
    const kept = await fakeRecording(recordings, 20, 1024);
    const service = await KvScopeService.start({
      dataDir: dir,
      demo: false,
      persistProfiles: false,
      transport: 'websocket',
      recordingsBudgetBytes: 1024 * 1024,
    });
    try {
      const list = await service.listRecordings();
      expect(list.map((r) => r.id)).not.toContain(oldest);
      expect(list).toHaveLength(2);
      expect(list[0]?.current).toBe(true);
      expect(list[1]).toMatchObject({ id: kept, bytes: 1024, current: false });
      expect(list[1]?.startedAt).toBe(new Date(NOW - 20 * DAY).toISOString());
      const files = await listRecordingFiles(recordings);
      expect(files.map((f) => f.name)).toEqual([kept, list[0]?.id]);
    } finally {
      await service.close();
    }
  });

  it('opens a recording left behind by its name through the same path as a file, and refuses the live one or a path', async () => {
    const recordings = join(dir, 'recordings');
    const left = await Recording.create({ dir: recordings, app: 't', startedAt: new Date(NOW) });
    for (let i = 0; i < 5; i++) {
      const e = stored('engine', 100 + i, [`${i}`]);
      left.record({
        k: 'batch',
        meta: { source: 'engine', seq: e.seq, ts: e.ts, dpRank: 0 },
        events: [e],
      });
    }
    await left.flush(); // no close: the file ends as a crash leaves it
    const service = await KvScopeService.start({
      dataDir: dir,
      demo: false,
      persistProfiles: false,
      transport: 'websocket',
    });
    try {
      const list = await service.listRecordings();
      const crashed = list.find((r) => !r.current);
      expect(crashed?.id).toBe(left.path.split('/').pop());
      const opened = await service.openRecording(crashed?.id ?? '');
      expect(opened).toMatchObject({ status: 'done', action: 'opened', name: crashed?.id });
      expect(service.kpis().events).toBe(5);
      expect(service.kpis().storedBlocks).toBe(5);
      const current = list.find((r) => r.current)?.id ?? '';
      expect(await service.openRecording(current)).toMatchObject({ status: 'failed' });
      const gone = await service.openRecording(
        'recording-2020-01-01T00-00-00-000Z-000000.kvscope.jsonl.gz',
      );
      expect(gone).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/pick one from the list again/),
      });
      expect(() => parseArgs('recordings:open', ['../profiles.json'])).toThrow(/recording name/);
      expect(() => parseArgs('recordings:open', ['recording-../../etc.kvscope.jsonl.gz'])).toThrow(
        /recording name/,
      );
    } finally {
      await service.close();
      await left.close();
    }
  });
});

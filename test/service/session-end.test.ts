// An opened session's last second is where its recording stopped (a save while live, the app
// closed): not a whole second. It is not rated (Stored / s), as live the second still filling is
// not; its charts and rates CSV draw it, as they draw every second the file holds (its last
// events and resident level), and a file of one second draws that second.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, makeHeader } from '../../electron/session/format';
import { KvScopeService } from '../../electron/service/service';
import { stored } from '../model/helpers';

const T0 = 1_767_225_600;
let dir = '';
let service: KvScopeService;

/** 12 whole seconds of 10 blocks each, then a second cut after its first 2 blocks. */
function session(): Buffer {
  const source = { id: 'engine', name: 'engine', endpoint: 'tcp://127.0.0.1:1' };
  const lines = [JSON.stringify(makeHeader('test', new Date(0), [source]))];
  let seq = 0;
  for (let s = 0; s < 13; s += 1) {
    for (let k = 0; k < (s < 12 ? 10 : 2); k += 1) {
      const rec = { ...stored('engine', T0 + s + k / 10, [`${100 * s + k + 1}`]), seq: seq++ };
      lines.push(encodeRecord({ k: 'event', rec }));
    }
  }
  return gzipSync(`${lines.join('\n')}\n`);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kvscope-session-end-'));
  service = await KvScopeService.start({
    dataDir: dir,
    demo: false,
    persistProfiles: false,
    transport: 'websocket',
    openCache: false,
  });
});

afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('an opened session’s last second', () => {
  it('is not rated, but drawn and a CSV row; every block stays in the totals', async () => {
    const r = await service.openSession(session(), 'cut.kvscope.jsonl.gz');
    expect(r).toMatchObject({ status: 'done' });
    const k = service.kpis();
    expect(k.storedBlocks).toBe(122);
    // The last 10 whole seconds: 10 a second (with the cut one, 9.2).
    expect(k.storedPerSec).toBe(10);
    const s = service.series({ rangeSec: null, maxPoints: 600 });
    expect(s.points.map((p) => p.t)).toEqual(Array.from({ length: 13 }, (_, i) => T0 + i));
    expect(s.points.map((p) => p.stored)).toEqual([...Array<number>(12).fill(10), 2]);
    // The chart ends at the resident level the tile says.
    expect(s.points.at(-1)?.resident.reduce((a, b) => a + b, 0)).toBe(k.residentBlocks);
    const rows = service.ratesCsv().trimEnd().split('\n').slice(1);
    expect(rows.map((r) => Number(r.split(',')[0]))).toEqual(s.points.map((p) => p.t));
  });

  it('is drawn when it is the only second of the file (it showed no events at all)', async () => {
    const source = { id: 'engine', name: 'engine', endpoint: 'tcp://127.0.0.1:1' };
    const lines = [JSON.stringify(makeHeader('test', new Date(0), [source]))];
    for (let k = 0; k < 5; k += 1) {
      const rec = { ...stored('engine', T0 + k / 10, [`${k + 1}`]), seq: k };
      lines.push(encodeRecord({ k: 'event', rec }));
    }
    const r = await service.openSession(gzipSync(`${lines.join('\n')}\n`), 'one.kvscope.jsonl.gz');
    expect(r).toMatchObject({ status: 'done' });
    const s = service.series({ rangeSec: null, maxPoints: 600 });
    expect(s.points.map((p) => [p.t, p.stored, p.resident])).toEqual([[T0, 5, [5]]]);
  });
});

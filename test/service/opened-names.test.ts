// An opened session names its sources as the file does (its header's sources and its source
// lines), lists them as the view's sources (what the Source filters offer), exports them by name,
// and `kvscope analyze`'s text names them too (a name two sources share keeps its id).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpdateFrame } from '../../shared/api-types';
import { encodeRecord, makeHeader, type SessionSource } from '../../electron/session/format';
import { KvScopeService } from '../../electron/service/service';
import { stored } from '../model/helpers';
import { CLI, ensureBuilt } from '../support/built-app';
import { latestFrame } from '../support/test-service';
import { waitFor } from '../support/wait-for';

const run = promisify(execFile);
let dir = '';
let service: KvScopeService;
let lastFrame: () => UpdateFrame | null;

/** A session of two ranks: rank 0 named in the header, rank 1 in a source line. */
function session(rank1: SessionSource): Buffer {
  const rank0 = { id: 'simdp2', name: 'simdp2 #0', endpoint: 'tcp://127.0.0.1:1' };
  const lines = [JSON.stringify(makeHeader('test', new Date(0), [rank0]))];
  lines.push(encodeRecord({ k: 'source', rec: rank1 }));
  for (let i = 0; i < 20; i += 1) {
    const source = i % 2 === 0 ? rank0.id : rank1.id;
    const rec = { ...stored(source, 1000 + i, [`${i}1`, `${i}2`]), seq: i };
    lines.push(encodeRecord({ k: 'event', rec }));
  }
  return gzipSync(`${lines.join('\n')}\n`);
}

const rank1 = { id: 'simdp2#1', name: 'simdp2 #1', endpoint: 'tcp://127.0.0.1:2' };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kvscope-opened-names-'));
  service = await KvScopeService.start({
    dataDir: dir,
    demo: false,
    persistProfiles: false,
    transport: 'websocket',
    frameIntervalMs: 5,
  });
  lastFrame = latestFrame(service);
});

afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('an opened session’s sources', () => {
  it('are the view’s sources, by the names the file gives them, filtered and exported so', async () => {
    const done = await service.openSession(session(rank1), 'dp2.kvscope.jsonl.gz');
    expect(done.status).toBe('done');
    await waitFor(() => lastFrame()?.view.kind === 'session', 'the opened view');
    expect(lastFrame()?.view.sources).toEqual([
      { id: 'simdp2', name: 'simdp2 #0' },
      { id: 'simdp2#1', name: 'simdp2 #1' },
    ]);
    // Filtering by one of them answers its events.
    const page = service.events({ offset: 0, limit: 100, source: 'simdp2#1' });
    expect(page.total).toBe(10);
    expect(page.rows.every((r) => r.source === 'simdp2#1')).toBe(true);
    const file = path.join(dir, 'events.json');
    await service.exportEvents(file, { source: 'simdp2#1' }, 'json');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('"source":"simdp2 #1"');
    expect(text).toContain('"source_id":"simdp2#1"');
    service.backToLive();
    await waitFor(() => lastFrame()?.view.kind === 'live', 'the live view');
    expect(lastFrame()?.view.sources).toEqual([]);
  });

  it('are named by `kvscope analyze` in its text (the id where names clash); its JSON keys them by id', async () => {
    ensureBuilt();
    const named = path.join(dir, 'named.kvscope.jsonl.gz');
    await writeFile(named, session(rank1));
    const text = (await run(process.execPath, [CLI, 'analyze', named])).stdout;
    expect(text).toContain('simdp2 #0');
    expect(text).toContain('simdp2 #1');
    const json = JSON.parse(
      (await run(process.execPath, [CLI, 'analyze', '--json', named])).stdout,
    );
    // The ids the file's event lines carry: what a script or an independent checker matches.
    expect(Object.keys(json.per_source as object)).toEqual(['simdp2', 'simdp2#1']);
    const clashing = path.join(dir, 'clash.kvscope.jsonl.gz');
    await writeFile(clashing, session({ ...rank1, name: 'simdp2 #0' }));
    const both = (await run(process.execPath, [CLI, 'analyze', clashing])).stdout;
    expect(both).toContain('simdp2 #0 (simdp2)');
    expect(both).toContain('simdp2 #0 (simdp2#1)');
  }, 60_000);
});

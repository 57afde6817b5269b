// Runs the real electron-builder (`--linux dir`) offline. The Electron binary cannot be downloaded
// here, so `electronDist` points at a stand-in that carries Electron's fuse wire: the test then
// reads the fuses back out of the packaged binary.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listPackage } from '@electron/asar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT as root } from '../support/built-app';

const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/** Electron's fuse order (wire v1) and the states a stock binary ships with ('1' on, '0' off). */
const FUSES = [
  ['runAsNode', '1', '0'],
  ['enableCookieEncryption', '0', '1'],
  ['enableNodeOptionsEnvironmentVariable', '1', '0'],
  ['enableNodeCliInspectArguments', '1', '0'],
  ['enableEmbeddedAsarIntegrityValidation', '0', '1'],
  ['onlyLoadAppFromAsar', '0', '1'],
  ['loadBrowserProcessSpecificV8Snapshot', '0', '0'],
  ['grantFileProtocolExtraPrivileges', '1', '0'],
] as const;

let work: string;
let unpacked: string;
let entries: string[];

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(path.join(os.tmpdir(), 'kvscope-pack-'));
  const electronDist = path.join(work, 'electron-dist');
  mkdirSync(electronDist);
  const wire = FUSES.map(([, stock]) => stock).join('');
  const binary = Buffer.concat([
    Buffer.from('#!/bin/sh\necho stand-in electron\n'),
    Buffer.from(SENTINEL),
    Buffer.from([1, FUSES.length]),
    Buffer.from(wire),
  ]);
  writeFileSync(path.join(electronDist, 'electron'), binary, { mode: 0o755 });
  execFileSync(
    process.execPath,
    [
      path.join(root, 'node_modules/electron-builder/cli.js'),
      '--linux',
      'dir',
      '--x64',
      `-c.electronDist=${electronDist}`,
      `-c.directories.output=${path.join(work, 'out')}`,
    ],
    { cwd: root, stdio: 'ignore', env: { ...process.env, CI: 'true' } },
  );
  unpacked = path.join(work, 'out/linux-unpacked');
  entries = listPackage(path.join(unpacked, 'resources/app.asar'), { isPack: false });
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packaged Linux app', () => {
  it('holds the built main, preload and renderer', () => {
    for (const file of [
      '/package.json',
      '/dist/main.cjs',
      '/dist/preload.cjs',
      '/dist/renderer/index.html',
    ]) {
      expect(entries).toContain(file);
    }
    expect(entries.some((e) => /^\/dist\/renderer\/assets\/.+\.js$/.test(e))).toBe(true);
  });

  it("holds zeromq's linux-x64 binary, unpacked from the asar, and no other platform's", () => {
    const zmqBuild = path.join(unpacked, 'resources/app.asar.unpacked/node_modules/zeromq/build');
    const linux = readdirSync(path.join(zmqBuild, 'linux/x64/node'));
    expect(
      linux.some((dir) => existsSync(path.join(zmqBuild, 'linux/x64/node', dir, 'addon.node'))),
    ).toBe(true);
    expect(existsSync(path.join(zmqBuild, 'darwin'))).toBe(false);
    expect(existsSync(path.join(zmqBuild, 'win32'))).toBe(false);
    // zeromq loads its binary through cmake-ts at run time.
    expect(entries.some((e) => e.startsWith('/node_modules/cmake-ts/'))).toBe(true);
  });

  it('holds no tests and no sources', () => {
    const leaked = entries.filter(
      (e) =>
        /^\/(test|electron|renderer|shared|build)(\/|$)/.test(e) ||
        (/\.(ts|tsx)$/.test(e) && !e.endsWith('.d.ts')) ||
        e.endsWith('.map'),
    );
    expect(leaked).toEqual([]);
    expect(entries.some((e) => e.includes('/fixtures/'))).toBe(false);
  });

  it('flips the Electron fuses in the packaged binary', () => {
    const binary = readFileSync(path.join(unpacked, 'kvscope'));
    const at = binary.indexOf(SENTINEL) + SENTINEL.length + 2;
    const states = Object.fromEntries(
      FUSES.map(([name], i) => [name, String.fromCharCode(binary[at + i] ?? 0)]),
    );
    const expected = Object.fromEntries(FUSES.map(([name, , wanted]) => [name, wanted]));
    expect(states).toEqual(expected);
  });
});

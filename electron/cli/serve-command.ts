import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import { type Command, Option } from 'commander';
import type { FileResult } from '../../shared/api-types';
import { fileResultNotice } from '../../shared/file-result';
import { probeListen, SERVE_PORT_ADVICE, startHttpHost, type HttpHost } from '../serve/http-host';
import { startServiceWorker } from '../serve/service-worker';
import { notRegularFile } from '../session/regular-file';
import { budgetFromEnv } from '../session/recording-retention';
import { isWildcardHost } from '../serve/door';
import { defaultDataDir, ensureWritableDataDir } from '../service/data-dir';
import { DEMO_PROFILE_ID } from '../service/connections';
import type { ServiceLink } from '../host/service-link';
import { addEndpointOptions, endpointsFromFlags, type EndpointFlags } from './endpoint-options';
import { withStartupProgress } from './startup-file-progress';
import { kvCacheGroupOption, parseToken, portOption } from './option-values';

export interface ServeFlags extends EndpointFlags {
  port: number;
  host: string;
  open?: string;
  import?: string;
  dataDir: string;
  token?: string;
  group?: number;
}

/** What --group changes in the screens (serve and desktop). */
export const SCREEN_GROUP_EFFECT =
  ": the Insights' figures (and those of /metrics' analysis) are that group's; the Overview counts every group";

/** `kvscope serve`: the renderer and the service over HTTP + WebSocket, for a browser. */
export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description('Serve the dashboard to a browser (HTTP + WebSocket), headless.')
    .addOption(
      new Option('--port <port>', 'port to listen on (0 = any free)')
        .default(8080)
        .argParser(portOption('--port')),
    )
    .option(
      '--host <host>',
      'address to listen on; keep it on loopback unless you mean it',
      '127.0.0.1',
    )
    .option('--open <file>', 'open a saved session at start')
    .option(
      '--import <file>',
      "import a capture (the seed script's or kvscope capture --json) at start",
    )
    .option('--data-dir <dir>', 'where connections and recordings are kept', defaultDataDir())
    .addOption(
      new Option(
        '--token <token>',
        'the token every request needs when --host is not loopback (default: a new random one)',
      ).argParser(parseToken),
    )
    .addOption(kvCacheGroupOption(SCREEN_GROUP_EFFECT));
  addEndpointOptions(command).action((flags: ServeFlags) => runServe(flags));
}

/**
 * Starts the service in its worker thread and the HTTP host on this one; runs until SIGINT or
 * SIGTERM, or until the service thread ends (said on stderr, exit code 1). `portAdvice`: how the
 * user picks another port when this one is taken (the desktop's fallback is not started as serve).
 */
export async function runServe(flags: ServeFlags, portAdvice = SERVE_PORT_ADVICE): Promise<void> {
  // What would fail anyway fails first, in one line, before anything is started.
  await ensureWritableDataDir(flags.dataDir);
  const openBytes = flags.open ? await mustRead('--open', flags.open) : 0;
  const importBytes = flags.import ? await mustRead('--import', flags.import) : 0;
  // A port that cannot be had fails before the service starts its recording file.
  await probeListen(flags.host, flags.port, portAdvice);
  // The page lists it too; a terminal that started serve should not have to open it to learn.
  const budget = budgetFromEnv();
  if (budget.problem !== null) process.stderr.write(`${budget.problem}\n`);
  const worker = await startServiceWorker(path.join(__dirname, 'service-host.cjs'), {
    dataDir: flags.dataDir,
    endpoints: endpointsFromFlags(flags),
    // A file asked for is what the user came to see: no demo is invented beside it (--demo
    // still starts one). Otherwise the demo runs when nothing else is configured.
    demo: flags.demo ? true : flags.open || flags.import ? false : 'auto',
    demoPort: flags.demoPort,
    transport: 'websocket',
    ...(flags.group === undefined ? {} : { group: flags.group }),
  });
  const service = worker.link;
  let host: HttpHost;
  try {
    // The port first: a busy one fails at once, not after reading a large file. The URL is said
    // only once the files asked for are open.
    host = await startHttpHost({
      service,
      rendererDir: path.join(__dirname, 'renderer'),
      host: flags.host,
      port: flags.port,
      dataDir: flags.dataDir,
      token: flags.token,
      portAdvice,
    });
  } catch (err) {
    await worker.close();
    throw err;
  }
  try {
    const open = flags.open;
    if (open) {
      const name = path.basename(open);
      const load = () => service.openSession(open, name);
      report(await withStartupProgress(service, process.stderr, 'opening', open, openBytes, load));
    }
    const capture = flags.import;
    if (capture) {
      const name = path.basename(capture);
      const load = () => service.importCapture(capture, name);
      report(
        await withStartupProgress(service, process.stderr, 'importing', capture, importBytes, load),
      );
    }
  } catch (err) {
    await host.close();
    await worker.close();
    throw err;
  }
  // One write: whoever reads the URL line reads the token note with it.
  const note = host.token
    ? `It listens beyond loopback (${flags.host}): every request needs the token in that URL.\n${remoteNote(flags.host, host.url)}`
    : '';
  process.stdout.write(`KV Scope is serving on ${host.url}\n${note}${await demoNote(service)}`);
  const stop = () => {
    void host
      .close()
      .then(() => worker.close())
      .then(() => process.exit(0));
  };
  // A dead service thread is no silent dead page: the terminal says why, the tab says disconnected.
  service.onLost((reason) => {
    process.stderr.write(`kvscope serve: ${reason}\n`);
    // The thread may still be closing its sockets: ending before it has could abort the process.
    void host
      .close()
      .then(() => worker.close())
      .finally(() => process.exit(1));
  });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Where the demo engine publishes, when it runs: ports picked free are said here. */
async function demoNote(service: ServiceLink): Promise<string> {
  const demo = (await service.listProfiles()).find((p) => p.id === DEMO_PROFILE_ID);
  if (!demo) return '';
  const ranks = demo.dpRanks > 1 ? ` (ranks on the next ${demo.dpRanks - 1} port(s))` : '';
  const replay = demo.replayEndpoint ? `, replay ${demo.replayEndpoint}` : '';
  return `The demo engine publishes on ${demo.endpoint}${ranks}${replay}.\n`;
}

/** A file asked for at start must open; a file that cannot be read stops the start. */
function report(result: FileResult): void {
  // The terminal shows no list of problems: the page does.
  const notice = fileResultNotice(result, 'the page lists them');
  if (result.status === 'failed') throw new Error(notice?.text ?? result.error);
  if (notice) process.stderr.write(`${notice.text}\n`);
}

/** Its size in bytes, once it is known to be a file this process can read. */
async function mustRead(flag: string, file: string): Promise<number> {
  try {
    const info = await stat(file);
    const what = notRegularFile(info);
    if (what !== null) throw new Error(`it is ${what}, not a file`);
    await access(file, constants.R_OK);
    return info.size;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'not allowed to read it'
          : err instanceof Error
            ? err.message
            : String(err);
    throw new Error(`${flag} ${file}: ${why}; give the path of a session or capture file`);
  }
}

/** On every interface the URL names 127.0.0.1: say the one another machine opens (this host's name). */
function remoteNote(listen: string, url: string): string {
  if (!isWildcardHost(listen)) return '';
  const remote = new URL(url);
  remote.hostname = os.hostname();
  return `From another machine: ${remote.href}\n`;
}

import path from 'node:path';
import { type Command, Option } from 'commander';
import type { FileResult } from '../../shared/api-types';
import { fileResultNotice } from '../../shared/file-result';
import { startHttpHost } from '../serve/http-host';
import { defaultDataDir } from '../service/data-dir';
import { KvScopeService } from '../service/service';
import { addEndpointOptions, endpointsFromFlags, type EndpointFlags } from './endpoint-options';

export interface ServeFlags extends EndpointFlags {
  port: number;
  host: string;
  open?: string;
  import?: string;
  dataDir: string;
}

/** `kvscope serve`: the renderer and the service over HTTP + WebSocket, for a browser. */
export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description('Serve the dashboard to a browser (HTTP + WebSocket), headless.')
    .addOption(
      new Option('--port <port>', 'port to listen on (0 = any free)')
        .default(8080)
        .argParser(parsePort),
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
    .option('--data-dir <dir>', 'where connections and recordings are kept', defaultDataDir());
  addEndpointOptions(command).action((flags: ServeFlags) => runServe(flags));
}

/** Starts the service and its HTTP host; runs until SIGINT or SIGTERM. */
export async function runServe(flags: ServeFlags): Promise<void> {
  const service = await KvScopeService.start({
    dataDir: flags.dataDir,
    endpoints: endpointsFromFlags(flags),
    demo: flags.demo ? true : 'auto',
    transport: 'websocket',
  });
  if (flags.open) report(await service.openSession(flags.open, path.basename(flags.open)));
  if (flags.import) report(await service.importCapture(flags.import, path.basename(flags.import)));
  const host = await startHttpHost({
    service,
    rendererDir: path.join(__dirname, 'renderer'),
    host: flags.host,
    port: flags.port,
  }).catch(async (err: unknown) => {
    await service.close();
    throw err;
  });
  process.stdout.write(`KV Scope is serving on ${host.url}\n`);
  const stop = () => {
    void host
      .close()
      .then(() => service.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function report(result: FileResult): void {
  const notice = fileResultNotice(result);
  if (notice) process.stderr.write(`${notice.text}\n`);
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port ${value}: not a port`);
  return port;
}

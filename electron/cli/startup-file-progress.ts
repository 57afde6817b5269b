// `kvscope serve --open/--import FILE`: a big file is read before the page is served (a minute for
// some sessions), so stderr says at once what is being read and how big it is, then how far the
// reading is, from the service thread's own update frames (their view.progress). On a terminal
// that is one line rewritten in place and wiped at the end; on a pipe or a file only the start
// line and the result line (what `report` prints after) are written.

import path from 'node:path';
import type { UpdateFrame } from '../../shared/api-types';
import { formatBytes } from '../../shared/byte-size';
import type { ServiceLink } from '../host/service-link';
import { terminalProgress } from './analyze-progress';

/** Runs `load` (an open or import of `file` through `service`) while `out` follows its progress. */
export async function withStartupProgress<T>(
  service: ServiceLink,
  out: NodeJS.WriteStream,
  what: 'opening' | 'importing',
  file: string,
  totalBytes: number,
  load: () => Promise<T>,
): Promise<T> {
  const size = formatBytes(totalBytes);
  out.write(`kvscope serve: ${what} ${file} (${size}); the page is served once it is read\n`);
  const line = terminalProgress(out, path.basename(file), totalBytes);
  if (line === null) return load();
  line.update(0);
  // A client of its own: the service builds it frames as for a tab, each acknowledged so the
  // next one comes.
  const client = service.connect((channel, payload) => {
    if (channel !== 'update') return;
    const frame = payload as UpdateFrame;
    if (frame.view.progress !== null) line.update(frame.view.progress.fraction);
    client.invoke('frames:ack', [frame.n]).catch(() => undefined);
  });
  try {
    return await load();
  } finally {
    client.close();
    line.done();
  }
}

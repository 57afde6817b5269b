// What the events and chains exports share: a list of rows as CSV (a header, then a line per row)
// or as one JSON document (format name, version, time, the filter taken, then the rows).

import type { ExportFormat } from '../../shared/api-types';
import { missingCase } from '../../shared/records';
import { csvLine } from './csv';

type Value = string | number | null | undefined;

/** How one kind of list is written. */
export interface ListShape<R> {
  /** "events" or "chains": names the JSON's format and its list. */
  kind: string;
  columns: readonly string[];
  /** The row's values in the order of `columns`. */
  csvRow(row: R): Value[];
  /** The row as a JSON object. */
  jsonRow(row: R): object;
}

/** The export's text, chunk by chunk (a header, then one chunk per row). */
export function* listExport<R>(
  rows: Iterable<R>,
  format: ExportFormat,
  filter: object,
  shape: ListShape<R>,
): Generator<string> {
  switch (format) {
    case 'csv':
      yield csvLine(shape.columns);
      for (const r of rows) yield csvLine(shape.csvRow(r));
      return;
    case 'json': {
      const head = {
        format: `kvscope-${shape.kind}`,
        version: 1,
        exported_at: new Date().toISOString(),
        filter,
      };
      yield `${JSON.stringify(head).slice(0, -1)},${JSON.stringify(shape.kind)}:[`;
      let first = true;
      for (const r of rows) {
        yield `${first ? '\n' : ',\n'}${JSON.stringify(shape.jsonRow(r))}`;
        first = false;
      }
      yield '\n]}\n';
      return;
    }
    default:
      return missingCase(format);
  }
}

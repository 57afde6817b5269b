import type { ExportFormat, FileResult } from '../../shared/api-types';
import { runFileAction } from './file-actions';
import type { Notify } from './file-actions';

interface Props {
  /** What is exported, for the labels ("events", "chains"). */
  what: string;
  run(format: ExportFormat): Promise<FileResult>;
  notify: Notify;
  testId: string;
}

/** CSV and JSON export buttons of a list, with the list's filter applied. */
export function ExportButtons({ what, run, notify, testId }: Props) {
  const button = (format: ExportFormat, label: string) => (
    <button
      type="button"
      className="btn btn-small"
      data-testid={`${testId}-${format}`}
      title={`Export the ${what} shown (this filter) as ${label}`}
      onClick={() => void runFileAction(`Export ${what}`, () => run(format), notify)}
    >
      {label}
    </button>
  );
  return (
    <span className="export-buttons" role="group" aria-label={`Export the ${what}`}>
      <span className="muted">Export</span>
      {button('csv', 'CSV')}
      {button('json', 'JSON')}
    </span>
  );
}

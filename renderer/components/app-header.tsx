import type { RecordingStatus, ViewInfo } from '../../shared/api-types';
import { bridge, errorText } from '../bridge/bridge';
import { formatClock, formatDateTime } from '../lib/format';
import { viewSourceLabels } from '../lib/source-names';
import { useTheme } from '../state/theme-store';
import { exportPng, runFileAction } from './file-actions';
import type { Notify } from './file-actions';
import { RecordingBadge } from './recording-badge';
import { ThemeToggle } from './theme-toggle';

interface Props {
  view: ViewInfo | null;
  recording?: RecordingStatus | null;
  notify: Notify;
}

/** Title, view badges and the file buttons. */
export function AppHeader({ view, recording = null, notify }: Props) {
  const { theme } = useTheme();
  const b = bridge();
  const session = view?.kind === 'session';
  const removedLabels = viewSourceLabels(view?.sources ?? [], view?.removedSources ?? []);
  return (
    <header className="app-header">
      <div className="title-block">
        <span className="app-name">KV Scope</span>
        <span className="view-title" data-testid="view-title" title={view?.title ?? ''}>
          {view ? view.title : 'connecting…'}
          {view?.unsaved && (
            <span className="unsaved" title="Not saved yet" aria-label="unsaved">
              {' '}
              •
            </span>
          )}
        </span>
        {view?.demo && (
          <span className="badge badge-demo" data-testid="badge-demo">
            demo
          </span>
        )}
        {session && (
          <span className="badge badge-session" data-testid="badge-session">
            read-only session
          </span>
        )}
        {session &&
          view.removedSources.map((s) => {
            const name = removedLabels.get(s.id) ?? s.name;
            return (
              <span
                key={s.id}
                className="badge badge-removed"
                data-testid="removed-source"
                title={`${name} was removed at ${formatDateTime(s.removedAt)}: its events are in no total from then on`}
              >
                {name} removed at {formatClock(s.removedAt)}
              </span>
            );
          })}
        <RecordingBadge recording={recording} />
      </div>
      <div className="toolbar" role="toolbar" aria-label="File">
        <button
          type="button"
          className="btn"
          data-testid="open-session"
          onClick={() => void runFileAction('Opened', () => b.openSession(), notify)}
        >
          Open session
        </button>
        <button
          type="button"
          className="btn"
          data-testid="save-session"
          disabled={session}
          title={session ? 'An opened session is already saved' : 'Save the live recording'}
          onClick={() => void runFileAction('Saved', () => b.saveSessionAs(), notify)}
        >
          Save session as
        </button>
        <button
          type="button"
          className="btn"
          data-testid="import-capture"
          onClick={() => void runFileAction('Imported', () => b.importCapture(), notify)}
        >
          Import capture
        </button>
        <button
          type="button"
          className="btn"
          data-testid="export-csv"
          // Not the chart's zoom: every second of the view, for a spreadsheet to window itself.
          title="The rates and resident blocks of the whole view, a row per second (not a zoomed window)"
          onClick={() => void runFileAction('Exported CSV', () => b.exportRatesCsv(), notify)}
        >
          Export CSV
        </button>
        <button
          type="button"
          className="btn"
          data-testid="export-png"
          onClick={() => void exportPng(theme, notify)}
        >
          Export PNG
        </button>
        {session && (
          <button
            type="button"
            className="btn btn-primary"
            data-testid="back-to-live"
            onClick={() =>
              void b.backToLive().then(
                () => notify('Back to the live view'),
                (e: unknown) => notify(`Back to live failed: ${errorText(e)}`, 'error'),
              )
            }
          >
            Back to live
          </button>
        )}
        <ThemeToggle />
      </div>
    </header>
  );
}

import { useCallback, useEffect, useRef, useState } from 'react';
import type { RecentRecording } from '../../shared/api-types';
import { bridge, errorText } from '../bridge/bridge';
import { runFileAction, type Notify } from '../components/file-actions';
import { formatBytes, formatDateTime } from '../lib/format';

interface Props {
  notify: Notify;
}

/**
 * The recordings in the app's data folder, newest first: the one a crash left behind opens with
 * one click here, through the same path as a file (read-only, in the same views).
 */
export function RecentRecordings({ notify }: Props) {
  const [rows, setRows] = useState<RecentRecording[] | null>(null);
  const request = useRef(0);

  // Only the latest request's answer is shown: an older, slower one never overwrites it.
  const reload = useCallback(async () => {
    const n = ++request.current;
    try {
      const list = await bridge().listRecordings();
      if (n === request.current) setRows(list);
    } catch (e) {
      if (n === request.current) notify(`Could not list the recordings: ${errorText(e)}`, 'error');
    }
  }, [notify]);
  useEffect(() => {
    let alive = true;
    const n = ++request.current;
    bridge()
      .listRecordings()
      .then(
        (list) => {
          if (alive && n === request.current) setRows(list);
        },
        (e: unknown) => notify(`Could not list the recordings: ${errorText(e)}`, 'error'),
      );
    return () => {
      alive = false;
    };
  }, [notify]);

  return (
    <section className="panel" aria-label="Recent recordings" data-testid="recent-recordings">
      <div className="panel-head">
        <h2>Recent recordings</h2>
        <button type="button" className="btn btn-small" onClick={() => void reload()}>
          Refresh
        </button>
      </div>
      {rows == null ? (
        <p className="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <p className="muted">No recordings yet.</p>
      ) : (
        <ul className="profile-list" aria-label="Recordings">
          {rows.map((r) => (
            <li key={r.id} className="profile-item" data-testid="recording-item">
              <div className="profile-main">
                <strong>{formatDateTime(Date.parse(r.startedAt) / 1000)}</strong>
                <span className="mono muted ellipsis" title={r.id}>
                  {formatBytes(r.bytes)}
                  {r.current ? ' · recording now (the live view)' : ''}
                </span>
              </div>
              <div className="profile-actions">
                <button
                  type="button"
                  className="btn"
                  disabled={r.current}
                  title={r.current ? 'This is the live view' : 'Open it read-only'}
                  aria-label={`Open the recording of ${formatDateTime(Date.parse(r.startedAt) / 1000)}`}
                  onClick={() =>
                    void runFileAction('Opened', () => bridge().openRecording(r.id), notify)
                  }
                >
                  Open
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

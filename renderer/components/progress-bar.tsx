import { useSyncExternalStore } from 'react';
import type { FileProgress } from '../../shared/api-types';
import { bridge } from '../bridge/bridge';
import { getUpload, stopUpload, subscribeUpload } from '../bridge/upload-progress';
import { fileProgressText } from '../lib/file-progress-text';
import type { Notify } from './file-actions';

interface Props {
  /** The service's progress in reading the file (from the update frame). */
  reading: FileProgress | null;
  notify: Notify;
}

/**
 * A file being opened: its upload (browser mode), then the service reading it, with a way to
 * stop. Shown from the moment the file is chosen.
 */
export function ProgressBar({ reading, notify }: Props) {
  const upload = useSyncExternalStore(subscribeUpload, getUpload);
  if (!upload && !reading) return null;
  const text = upload
    ? fileProgressText(
        'uploading',
        upload.name,
        upload.totalBytes > 0 ? upload.sentBytes / upload.totalBytes : 0,
        upload.sentBytes,
        upload.totalBytes,
      )
    : fileProgressText(
        'reading',
        reading?.name ?? '',
        reading?.fraction ?? 0,
        reading?.bytesRead ?? null,
        reading?.totalBytes ?? null,
      );
  const cancel = () => {
    // Both: an upload that just ended may already be being read on the other side.
    stopUpload();
    bridge()
      .cancelOpen()
      .catch((e: unknown) => notify(`Could not stop the open: ${String(e)}`, 'error'));
  };
  return (
    <div className="progress" data-testid="progress" role="status" aria-label={text.label}>
      <span className="progress-text ellipsis" data-testid="progress-label" title={text.label}>
        {text.label}
      </span>
      <div
        className="progress-track"
        role="progressbar"
        aria-label={text.label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={text.percent}
      >
        <div className="progress-fill" style={{ width: `${text.percent}%` }} />
      </div>
      <span className="progress-text num" data-testid="progress-detail">
        {text.detail}
      </span>
      <button
        type="button"
        className="btn btn-small"
        data-testid="progress-cancel"
        onClick={cancel}
      >
        Cancel
      </button>
    </div>
  );
}

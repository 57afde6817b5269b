// The banners under the header: what a file action, a source or the app has to tell the reader.
// Several can show at once (lib/notice-list): an error stays until dismissed, other news goes
// after INFO_MS.

import { useCallback, useEffect, useRef, useState } from 'react';
import { withNotice, type Notice } from '../lib/notice-list';
import type { Notify } from './file-actions';

/** How long news that is not an error stays. */
const INFO_MS = 5000;

/** The notices shown, a notify that adds one and a dismiss that takes one away. */
export function useNotices(): {
  notices: Notice[];
  notify: Notify;
  dismiss: (id: number) => void;
} {
  const [notices, setNotices] = useState<Notice[]>([]);
  const nextId = useRef(0);
  const notify: Notify = useCallback((text, kind = 'info', topic) => {
    const id = (nextId.current += 1);
    setNotices((shown) => withNotice(shown, { id, text, kind, topic }));
  }, []);
  const dismiss = useCallback((id: number) => {
    setNotices((shown) => shown.filter((n) => n.id !== id));
  }, []);
  return { notices, notify, dismiss };
}

/** One banner; news that is not an error dismisses itself after INFO_MS. */
function NoticeBanner({ notice, dismiss }: { notice: Notice; dismiss: (id: number) => void }) {
  const { id, kind } = notice;
  useEffect(() => {
    if (kind === 'error') return;
    const t = setTimeout(() => dismiss(id), INFO_MS);
    return () => clearTimeout(t);
  }, [id, kind, dismiss]);
  return (
    <div
      className={`banner ${kind === 'error' ? 'banner-error' : 'banner-info'}`}
      role={kind === 'error' ? 'alert' : 'status'}
      data-testid="notice"
    >
      <span>{notice.text}</span>
      <button
        type="button"
        className="btn btn-ghost btn-small"
        aria-label="Dismiss the notice"
        onClick={() => dismiss(id)}
      >
        Dismiss
      </button>
    </div>
  );
}

/** The notices, oldest first. */
export function NoticeBanners({
  notices,
  dismiss,
}: {
  notices: readonly Notice[];
  dismiss: (id: number) => void;
}) {
  return (
    <>
      {notices.map((n) => (
        <NoticeBanner key={n.id} notice={n} dismiss={dismiss} />
      ))}
    </>
  );
}

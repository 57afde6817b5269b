// The notices in the window's corner: what a file action, a source or the app has to tell the
// reader. They float over the view rather than push it down: a notice arriving while the reader
// aims at a row must not move the row from under the pointer.
// Which are kept and which show: lib/notice-list. An error stays until dismissed; other news goes
// after INFO_MS, shown or still waiting behind newer ones (old news is not shown late).

import { useCallback, useRef, useState } from 'react';
import { plural } from '../lib/format';
import { shownNotices, withNotice, type Notice } from '../lib/notice-list';
import type { Notify } from './file-actions';

/** How long news that is not an error stays. */
const INFO_MS = 5000;

/** The notices kept, a notify that adds one and a dismiss that takes one away. */
export function useNotices(): {
  notices: Notice[];
  notify: Notify;
  dismiss: (id: number) => void;
} {
  const [notices, setNotices] = useState<Notice[]>([]);
  const nextId = useRef(0);
  const dismiss = useCallback((id: number) => {
    setNotices((kept) => kept.filter((n) => n.id !== id));
  }, []);
  const notify: Notify = useCallback(
    (text, kind = 'info', topic) => {
      const id = (nextId.current += 1);
      setNotices((kept) => withNotice(kept, { id, text, kind, topic }));
      // A notice replaced before its time (the same text again) is gone already: a no-op then.
      if (kind === 'info') setTimeout(() => dismiss(id), INFO_MS);
    },
    [dismiss],
  );
  return { notices, notify, dismiss };
}

/**
 * Dismisses a notice from its button. The focus, on that button, would fall to the page's body
 * with it: it goes on to the next notice's button, else the previous one's, else the view's tab.
 */
function dismissFrom(button: HTMLButtonElement, dismiss: () => void): void {
  const had = document.activeElement === button;
  const banner = button.closest('.banner');
  const next =
    banner?.nextElementSibling?.querySelector<HTMLElement>('.banner button') ??
    banner?.previousElementSibling?.querySelector<HTMLElement>('.banner button') ??
    document.querySelector<HTMLElement>('[role=tab][aria-selected=true]');
  dismiss();
  if (had) next?.focus();
}

/** One banner. */
function NoticeBanner({ notice, dismiss }: { notice: Notice; dismiss: (id: number) => void }) {
  const { id, kind } = notice;
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
        onClick={(e) => dismissFrom(e.currentTarget, () => dismiss(id))}
      >
        Dismiss
      </button>
    </div>
  );
}

/** The newest notices, oldest first, under a line saying how many older ones wait. */
export function NoticeBanners({
  notices,
  dismiss,
}: {
  notices: readonly Notice[];
  dismiss: (id: number) => void;
}) {
  const { shown, waiting } = shownNotices(notices);
  if (shown.length === 0) return null;
  return (
    <div className="notices" data-testid="notices">
      {waiting > 0 && (
        <div className="banner banner-waiting muted" data-testid="notices-waiting">
          {plural(waiting, 'older notice')} behind these: each shows as one below goes
        </div>
      )}
      {shown.map((n) => (
        <NoticeBanner key={n.id} notice={n} dismiss={dismiss} />
      ))}
    </div>
  );
}

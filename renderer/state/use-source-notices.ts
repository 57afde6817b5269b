import { useEffect, useRef } from 'react';
import type { SourceStatus } from '../../shared/api-types';
import { sourceEpisodeNotices } from '../lib/source-episodes';
import type { Notify } from '../components/file-actions';
import { useFrameState } from './frames';

/** Tells the user once per episode when a live source stalls, fails, restarts or loses batches. */
export function useSourceNotices(notify: Notify): void {
  const { frame } = useFrameState();
  const prev = useRef<Map<string, SourceStatus>>(new Map());
  useEffect(() => {
    if (!frame) return;
    const notices = sourceEpisodeNotices(prev.current, frame.sources);
    prev.current = new Map(frame.sources.map((s) => [s.id, s]));
    if (notices.length === 0) return;
    const kind = notices.some((n) => n.kind === 'error') ? 'error' : 'info';
    notify(notices.map((n) => n.text).join(' '), kind, 'sources');
  }, [frame, notify]);
}

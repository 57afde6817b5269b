import type { RecordingStatus } from '../../shared/api-types';
import { formatInt } from '../lib/format';

interface Props {
  recording: RecordingStatus | null;
}

/**
 * Says when the live recording file is not keeping up with the screen: how far behind it is, and
 * how many records it could not take (shown, but not in the file). Nothing while all is well.
 */
export function RecordingBadge({ recording: r }: Props) {
  if (!r || (!r.behind && r.droppedRecords === 0)) return null;
  const parts: string[] = [];
  if (r.behind) parts.push(`recording ${Math.round(r.lagSeconds)} s behind`);
  if (r.droppedRecords > 0) parts.push(`${formatInt(r.droppedRecords)} records not recorded`);
  return (
    <span
      className="badge badge-warn"
      role="status"
      data-testid="recording-behind"
      title="The disk does not keep up with the stream: what is shown may not all be in the recording file"
    >
      {parts.join(' · ')}
    </span>
  );
}

import { useRef, useState } from 'react';
import type { PointerEvent as ReactPointerEvent } from 'react';
import { Area, AreaChart, ResponsiveContainer, YAxis } from 'recharts';
import type { ChartRow } from '../lib/chart-rows';
import {
  panWindow,
  resizeWindow,
  spanFraction,
  spanTime,
  type TimeWindow,
} from '../lib/chart-zoom';
import { formatClock } from '../lib/format';
import type { ChartColors } from '../lib/theme';

interface Props {
  /** The whole session's total store rate, coarse: what the scrubber draws under the window. */
  rows: ChartRow[];
  /** The span the scrubber covers (the session's first to last second). */
  span: TimeWindow;
  /** The window the charts show. */
  value: TimeWindow;
  colors: ChartColors;
  /** The window moved or resized (called while dragging). */
  onChange(w: TimeWindow): void;
}

/** A drag: where it started (pointer and window) and the seconds per pixel then, kept for the whole drag. */
type Grab = { mode: 'pan' | 'from' | 'to'; x0: number; w0: TimeWindow; secPerPx: number };

/**
 * A time scrubber under the charts: the session in miniature with the charts' window on it. Drag
 * the window to pan, its edges to widen or narrow it, or click beside it to move it there. Our own
 * slider rather than recharts' Brush: Brush selects by index in the chart's own data, while this
 * window is a time range over a differently binned series.
 */
export function TimeScrubber({ rows, span, value, colors, onChange }: Props) {
  const track = useRef<HTMLDivElement>(null);
  const [grab, setGrab] = useState<Grab | null>(null);
  const left = spanFraction(value.from, span) * 100;
  const right = spanFraction(value.to, span) * 100;

  // The window and its edges say what they move in data-grab.
  const start = (e: ReactPointerEvent<HTMLElement>) => {
    const el = track.current;
    const mode = e.currentTarget.dataset.grab;
    if (!el || e.button !== 0 || (mode !== 'pan' && mode !== 'from' && mode !== 'to')) return;
    e.stopPropagation();
    e.currentTarget.setPointerCapture(e.pointerId);
    const width = el.getBoundingClientRect().width;
    if (width <= 0) return;
    // Each move is measured from the drag's start, never from the last move: N px is the same
    // time in one move or forty, and a live outline growing mid-drag does not change the scale.
    setGrab({ mode, x0: e.clientX, w0: value, secPerPx: (span.to - span.from) / width });
  };
  const move = (e: ReactPointerEvent<HTMLElement>) => {
    if (!grab) return;
    const dt = (e.clientX - grab.x0) * grab.secPerPx;
    if (grab.mode === 'pan') onChange(panWindow(grab.w0, dt, span));
    else {
      const edge = grab.mode;
      onChange(resizeWindow(grab.w0, edge, grab.w0[edge] + dt, span));
    }
  };
  const end = () => setGrab(null);
  // A click on the track beside the window centres the window there.
  const jump = (e: ReactPointerEvent<HTMLDivElement>) => {
    const el = track.current;
    if (!el || e.button !== 0) return;
    const box = el.getBoundingClientRect();
    const t = spanTime((e.clientX - box.left) / box.width, span);
    const width = value.to - value.from;
    onChange(panWindow(value, t - width / 2 - value.from, span));
  };

  return (
    <div className="scrubber" data-testid="time-scrubber">
      <span className="scrubber-end muted">{formatClock(span.from)}</span>
      <div
        className="scrubber-track"
        ref={track}
        onPointerDown={jump}
        onPointerMove={move}
        onPointerUp={end}
        onPointerCancel={end}
        role="slider"
        aria-label="Time window shown by the charts"
        aria-valuemin={span.from}
        aria-valuemax={span.to}
        aria-valuenow={value.from}
        aria-valuetext={`${formatClock(value.from)} to ${formatClock(value.to)}`}
        tabIndex={0}
        onKeyDown={(e) => {
          const step = (value.to - value.from) / 4;
          if (e.key === 'ArrowLeft') onChange(panWindow(value, -step, span));
          else if (e.key === 'ArrowRight') onChange(panWindow(value, step, span));
          else return;
          e.preventDefault();
        }}
      >
        <ResponsiveContainer width="100%" height="100%">
          <AreaChart data={rows} margin={{ top: 2, right: 0, bottom: 0, left: 0 }}>
            <YAxis hide domain={[0, 'dataMax']} />
            <Area
              dataKey="stored"
              type="monotone"
              isAnimationActive={false}
              activeDot={false}
              dot={false}
              stroke={colors.lines[0]}
              fill={colors.lines[0]}
              fillOpacity={0.2}
              strokeWidth={1}
            />
          </AreaChart>
        </ResponsiveContainer>
        <div className="scrubber-shade" style={{ left: 0, width: `${left}%` }} />
        <div className="scrubber-shade" style={{ left: `${right}%`, right: 0 }} />
        <div
          className={`scrubber-window ${grab ? 'scrubber-grabbed' : ''}`}
          data-testid="scrubber-window"
          style={{ left: `${left}%`, width: `${Math.max(0.5, right - left)}%` }}
          data-grab="pan"
          onPointerDown={start}
        >
          <span
            className="scrubber-handle scrubber-handle-from"
            data-testid="scrubber-from"
            data-grab="from"
            onPointerDown={start}
          />
          <span
            className="scrubber-handle scrubber-handle-to"
            data-testid="scrubber-to"
            data-grab="to"
            onPointerDown={start}
          />
        </div>
      </div>
      <span className="scrubber-end muted">{formatClock(span.to)}</span>
    </div>
  );
}

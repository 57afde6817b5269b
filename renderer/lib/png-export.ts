// Turns a chart's SVG into PNG bytes through a canvas, with a solid background and, above the
// plot, what the image shows: its title, the time range and sources, and the legend of the lines
// drawn (the legend on screen is HTML, not part of the SVG, so it is drawn here again).

/** One legend entry as drawn into the image. */
export interface PngLegendEntry {
  label: string;
  color: string;
  dash?: 'dashed' | 'dotted';
}

/** What a chart card says about itself for an export (its data-export-meta attribute). */
export interface ChartExportMeta {
  /** The time range drawn, said in full ("2026-12-01 12:00:00.000 – 12:05:00.000, 1 s per point"). */
  range: string;
  /** The sources the chart draws, by name. */
  sources: string;
  legend: PngLegendEntry[];
}

export interface PngStyle {
  background: string;
  text: string;
  /** The colour of the range and sources lines. */
  muted: string;
  /** Drawn above the chart, so the image says what it shows. */
  title: string;
  /** Lines under the title (time range, sources). */
  subtitle: string[];
  legend: PngLegendEntry[];
}

const PAD = 10;
const TITLE_LINE = 22;
const SUB_LINE = 17;
const LEGEND_LINE = 18;
const SWATCH = 18;
/**
 * Room added right of the plot: its last x-axis label is centred on the plot's right edge and
 * ends at the SVG's, and drawn in the image's font it ran a few pixels past it, clipped.
 */
const RIGHT_MARGIN = 2 * PAD;
/** A legend label wider than this is cut with an ellipsis (as on screen: .legend-label). */
const LABEL_MAX = 240;
const TITLE_FONT = '600 14px system-ui, sans-serif';
const SMALL_FONT = '12px system-ui, sans-serif';

interface Placed {
  entry: PngLegendEntry;
  /** The label as drawn: cut to LABEL_MAX. */
  text: string;
  x: number;
  row: number;
}

/** Lays the legend out in rows that fit `width`; entries wrap as the screen's legend does. */
function layoutLegend(
  ctx: CanvasRenderingContext2D,
  legend: readonly PngLegendEntry[],
  width: number,
): { placed: Placed[]; rows: number } {
  ctx.font = SMALL_FONT;
  const placed: Placed[] = [];
  let x = PAD;
  let row = 0;
  for (const entry of legend) {
    const text = fitText(ctx, entry.label, LABEL_MAX);
    const w = SWATCH + 5 + ctx.measureText(text).width + 14;
    if (x + w > width - PAD && x > PAD) {
      row += 1;
      x = PAD;
    }
    placed.push({ entry, text, x, row });
    x += w;
  }
  return { placed, rows: legend.length === 0 ? 0 : row + 1 };
}

/** `text` as it fits `max` pixels: whole, or cut with an ellipsis (binary search on its length). */
function fitText(ctx: CanvasRenderingContext2D, text: string, max: number): string {
  if (ctx.measureText(text).width <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= max) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}…`;
}

/** Serializes an SVG element and draws it at `scale` onto a canvas; resolves with PNG bytes. */
export async function svgToPng(
  svg: SVGSVGElement,
  style: PngStyle,
  scale = 2,
): Promise<Uint8Array> {
  const { width: plotWidth, height } = svg.getBoundingClientRect();
  const width = plotWidth + RIGHT_MARGIN;
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  // Recharts' viewBox is its size in pixels: widened as much, the plot keeps its scale.
  clone.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const text = new XMLSerializer().serializeToString(clone);
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml;charset=utf-8' }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the chart could not be drawn as an image'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    const measure = canvas.getContext('2d');
    if (!measure) throw new Error('no 2D canvas available');
    const legend = layoutLegend(measure, style.legend, width);
    const head =
      PAD + TITLE_LINE + style.subtitle.length * SUB_LINE + legend.rows * LEGEND_LINE + 6;
    // Setting the size clears the canvas and its state: draw only after this.
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round((height + head) * scale));
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas available');
    ctx.fillStyle = style.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.scale(scale, scale);
    ctx.textBaseline = 'middle';
    let y = PAD + TITLE_LINE / 2;
    ctx.fillStyle = style.text;
    ctx.font = TITLE_FONT;
    ctx.fillText(style.title, PAD, y, width - 2 * PAD);
    y += TITLE_LINE / 2;
    ctx.font = SMALL_FONT;
    ctx.fillStyle = style.muted;
    for (const line of style.subtitle) {
      ctx.fillText(line, PAD, y + SUB_LINE / 2, width - 2 * PAD);
      y += SUB_LINE;
    }
    for (const p of legend.placed) {
      const cy = y + p.row * LEGEND_LINE + LEGEND_LINE / 2;
      ctx.strokeStyle = p.entry.color;
      ctx.lineWidth = p.entry.dash ? 2 : 3;
      ctx.setLineDash(p.entry.dash === 'dashed' ? [6, 3] : p.entry.dash === 'dotted' ? [2, 3] : []);
      ctx.beginPath();
      ctx.moveTo(p.x, cy);
      ctx.lineTo(p.x + SWATCH, cy);
      ctx.stroke();
      ctx.fillStyle = style.text;
      ctx.fillText(p.text, p.x + SWATCH + 5, cy);
    }
    ctx.setLineDash([]);
    ctx.drawImage(img, 0, head, width, height);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
    if (!blob) throw new Error('the PNG could not be encoded');
    return new Uint8Array(await blob.arrayBuffer());
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** A chart card's SVG, title and export details, read from the card's data attributes. */
export interface ChartOnScreen {
  svg: SVGSVGElement;
  title: string;
  meta: ChartExportMeta;
}

/** Reads one chart host (an element with data-export-chart); null when it draws nothing. */
export function chartOf(host: HTMLElement): ChartOnScreen | null {
  const svg = host.querySelector<SVGSVGElement>('svg.recharts-surface');
  if (!svg) return null;
  let meta: ChartExportMeta = { range: '', sources: '', legend: [] };
  try {
    meta = { ...meta, ...(JSON.parse(host.dataset.exportMeta ?? '{}') as ChartExportMeta) };
  } catch {
    // A card without readable details still exports its plot and title.
  }
  return { svg, title: host.dataset.exportChart ?? '', meta };
}

/** The first chart on screen that can be exported (the menu's and the header's export), if any. */
export function chartSvgInView(): ChartOnScreen | null {
  for (const host of document.querySelectorAll<HTMLElement>('[data-export-chart]')) {
    const chart = chartOf(host);
    if (chart) return chart;
  }
  return null;
}

/** The lines under a chart image's title. */
export function pngSubtitle(meta: ChartExportMeta): string[] {
  return [meta.range, meta.sources ? `Sources: ${meta.sources}` : ''].filter((l) => l !== '');
}

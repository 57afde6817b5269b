// Turns a chart's SVG into PNG bytes through a canvas, with a solid background.

export interface PngStyle {
  background: string;
  text: string;
  /** Drawn above the chart, so the image says what it shows. */
  title: string;
}

const TITLE_H = 28;

/** Serializes an SVG element and draws it at `scale` onto a canvas; resolves with PNG bytes. */
export async function svgToPng(
  svg: SVGSVGElement,
  style: PngStyle,
  scale = 2,
): Promise<Uint8Array> {
  const { width, height } = svg.getBoundingClientRect();
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
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
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round((height + TITLE_H) * scale));
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas available');
    ctx.fillStyle = style.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.scale(scale, scale);
    ctx.fillStyle = style.text;
    ctx.font = '600 13px system-ui, sans-serif';
    ctx.fillText(style.title, 10, 18);
    ctx.drawImage(img, 0, TITLE_H, width, height);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
    if (!blob) throw new Error('the PNG could not be encoded');
    return new Uint8Array(await blob.arrayBuffer());
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** The SVG and title of the chart marked for export that is on screen, if any. */
export function chartSvgInView(): { svg: SVGSVGElement; title: string } | null {
  const host = document.querySelector<HTMLElement>('[data-export-chart]');
  const svg = host?.querySelector<SVGSVGElement>('svg.recharts-surface');
  if (!host || !svg) return null;
  return { svg, title: host.dataset.exportChart ?? '' };
}

// Reads an exported chart PNG in the page: which colours its head (title, range, sources,
// legend, drawn above the plot at scale 2) holds. DOM code goes as text: tests type-check for Node.
import type { Page } from 'playwright-core';

/** Page code that draws png on a canvas: `img` and its 2D context `ctx` for the code after it. */
const drawn = (png: Buffer): string => `
    const img = new Image();
    img.src = 'data:image/png;base64,${png.toString('base64')}';
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);`;

/** For each of `colours` ('#rrggbb'), whether the PNG's head above a plot `plotHeight` px tall has it. */
export function headHasColours(
  page: Page,
  png: Buffer,
  plotHeight: number,
  colours: readonly string[],
): Promise<boolean[]> {
  return page.evaluate<boolean[]>(`(async () => {
    ${drawn(png)}
    const headRows = img.height - Math.round(2 * ${plotHeight});
    const head = ctx.getImageData(0, 0, img.width, headRows).data;
    const seen = new Set();
    for (let i = 0; i < head.length; i += 4)
      seen.add('#' + [head[i], head[i + 1], head[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join(''));
    return ${JSON.stringify(colours)}.map((col) => seen.has(col));
  })()`);
}

/**
 * Whether the PNG's last `columns` pixel columns are all its background (its top-left pixel's
 * colour): nothing drawn, as a label, runs into the image's right edge, cut there.
 */
export function rightEdgeIsBlank(page: Page, png: Buffer, columns: number): Promise<boolean> {
  return page.evaluate<boolean>(`(async () => {
    ${drawn(png)}
    const bg = ctx.getImageData(0, 0, 1, 1).data;
    const edge = ctx.getImageData(img.width - ${columns}, 0, ${columns}, img.height).data;
    for (let i = 0; i < edge.length; i += 4)
      if (edge[i] !== bg[0] || edge[i + 1] !== bg[1] || edge[i + 2] !== bg[2]) return false;
    return true;
  })()`);
}

// The browser mode off loopback, in real Chromium: the page opened at the printed token URL works
// as on loopback (its scripts, its socket and its frames pass on the cookie the token set), and the
// same address without the token shows nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { kpi, openApp, type ServeProcess, useE2eWorkspace } from '../support/e2e-harness';

const ws = useE2eWorkspace('token');
let serve: ServeProcess;

beforeAll(async () => {
  serve = await ws.serve('data', ['--host', '0.0.0.0', '--demo']);
}, 60_000);

describe('kvscope serve --host 0.0.0.0 in a browser', () => {
  it('runs the app from the token URL: frames arrive over the socket', async () => {
    expect(new URL(serve.url).searchParams.get('token')).toMatch(/^[\w-]{32,}$/);
    const page = await openApp(ws.browser, serve.url);
    // The demo publishes: the stored count moves, so frames come over the cookie-carried socket.
    const first = await kpi(page, 'stored-blocks');
    await expect.poll(() => kpi(page, 'stored-blocks'), { timeout: 20_000 }).toBeGreaterThan(first);
    // The token has left the address bar; a reload goes on with the cookie.
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(200);
    const again = await kpi(page, 'stored-blocks');
    await expect.poll(() => kpi(page, 'stored-blocks'), { timeout: 20_000 }).toBeGreaterThan(again);
    await page.context().close();
  });

  it('says a page left open across a restart (a new token) is refused for its old token, not that serve may be down', async () => {
    const page = await openApp(ws.browser, serve.url);
    const port = new URL(serve.url).port;
    await serve.stop();
    serve = await ws.serve('data', ['--host', '0.0.0.0', '--demo', '--port', port]);
    const refused = page.getByTestId('link-refused');
    await refused.waitFor({ timeout: 30_000 });
    expect(await refused.textContent()).toMatch(
      /kvscope serve runs but refuses this page: the token given is not this KV Scope's/,
    );
    expect(await page.getByTestId('link-down').count()).toBe(0);
    // The URL it printed at this start works again in the same tab.
    await page.goto(serve.url);
    await refused.waitFor({ state: 'detached', timeout: 20_000 });
    await page.context().close();
  }, 90_000);

  it('shows nothing at the same address without the token', async () => {
    const context = await ws.browser.newContext();
    const page = await context.newPage();
    const bare = new URL(serve.url);
    bare.search = '';
    const response = await page.goto(bare.toString());
    expect(response?.status()).toBe(403);
    expect(await page.content()).toMatch(/needs its token/);
    expect(await page.getByTestId('kpi-stored-blocks').count()).toBe(0);
    await context.close();
  });
});

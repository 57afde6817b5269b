// Driving a SimPublisher against the app in the page: get past ZeroMQ's slow joiner, then wait
// until the KPI tiles account exactly for the batches the source received.
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { SimPublisher } from '../../electron/sim/publisher';
import { kpis, showView, type KpiId } from './e2e-harness';
import { eventually } from './wait-for';
import type { RawTruth, TruthTotals } from './e2e-truth';

/** The source card of a source by its name (the Connections view must be open). */
export function sourceCard(page: Page, name: string): Locator {
  return page.getByRole('article', { name: `Source ${name}` });
}

/** The plain number of one of a source card's statistics (messages, gaps, undecoded, ...). */
export async function sourceStat(card: Locator, label: string): Promise<number> {
  const dd = card
    .locator('dt', { hasText: new RegExp(`^${label}$`) })
    .locator('xpath=following-sibling::dd[1]');
  return Number((await dd.textContent())?.replace(/[^\d]/g, '') ?? NaN);
}

/**
 * Publishes one batch at a time until the source shows "connected" (its first batch arrived).
 * What is published before the subscription lands is dropped by ZeroMQ, and a source that
 * joins mid-stream does not replay what came before its first batch.
 */
export async function warmUp(
  page: Page,
  sim: Pick<SimPublisher, 'publish'>,
  name: string,
): Promise<void> {
  await showView(page, 'Connections');
  const state = sourceCard(page, name).locator('.state');
  await eventually(
    () => state.textContent(),
    (s) => s === 'waiting' || s === 'connected',
    `source ${name} to connect its socket`,
  );
  for (let i = 0; i < 100 && (await state.textContent()) !== 'connected'; i++) {
    await sim.publish(1);
    await state
      .filter({ hasText: 'connected' })
      .waitFor({ timeout: 500 })
      .catch(() => undefined);
  }
  expect(await state.textContent()).toBe('connected');
}

/**
 * Waits until the KPI tiles equal `base` plus the truth of the last `messages` batches published
 * (the ones the source received, gap-free), with at least `minMessages` received; returns them.
 */
export async function waitForReceived(
  page: Page,
  truth: RawTruth,
  name: string,
  base: Record<KpiId, number>,
  minMessages: number,
): Promise<TruthTotals> {
  const card = sourceCard(page, name);
  const read = async () => {
    await showView(page, 'Connections');
    const messages = await sourceStat(card, 'messages');
    const gaps = await sourceStat(card, 'gaps');
    await showView(page, 'Overview');
    const t = truth.totals(truth.published - messages);
    const k = await kpis(page);
    return {
      t,
      diff: {
        stored: k['stored-blocks'] - base['stored-blocks'] - t.storedBlocks,
        removed: k['removed-blocks'] - base['removed-blocks'] - t.removedBlocks,
        resident: k['resident-blocks'] - base['resident-blocks'] - t.resident,
        enough: messages >= minMessages,
        gaps,
      },
    };
  };
  const done = await eventually(
    read,
    ({ diff: d }) => d.stored === 0 && d.removed === 0 && d.resident === 0 && d.enough,
    `the totals of ${name} to match the simulator`,
    40_000,
  );
  expect(done.diff.gaps).toBe(0);
  return done.t;
}

/** KPI values that are all zero (a fresh view with nothing in it). */
export const ZERO_KPIS: Record<KpiId, number> = {
  'stored-blocks': 0,
  'removed-blocks': 0,
  'resident-blocks': 0,
  gaps: 0,
  undecoded: 0,
  events: 0,
  clears: 0,
};

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 20_000,
    // expect.poll returns as soon as its value is right; its default of 1 s is what one Chromium
    // redraw plus a Playwright round trip, or a socket round trip, can take on two cores that run
    // browsers and servers side by side: legitimately slow, not wrong.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 30_000,
    // Real sockets and a real browser share two cores: keep files from starving each other.
    maxWorkers: 2,
  },
});

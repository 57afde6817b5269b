// Which text /metrics answers in, from the scraper's Accept header.
import { describe, expect, it } from 'vitest';
import { metricsFormat } from '../../electron/metrics/metrics-http';

describe('metricsFormat', () => {
  it("takes OpenMetrics when Prometheus's own Accept header ranks it first", () => {
    expect(
      metricsFormat(
        'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      ),
    ).toBe('openmetrics');
  });

  it('keeps Prometheus text when nothing asks, or plain text ranks higher', () => {
    expect(metricsFormat(undefined)).toBe('prometheus');
    expect(metricsFormat('*/*')).toBe('prometheus');
    expect(metricsFormat('text/plain, application/openmetrics-text;q=0.5')).toBe('prometheus');
    expect(metricsFormat('application/openmetrics-text;q=0')).toBe('prometheus');
  });
});

import { useCallback, useState } from 'react';
import type { EngineReconciliation } from '../../shared/api-types';
import { bridge, errorText } from '../bridge/bridge';
import { useFrameState } from '../state/frames';
import { useThrottledRefresh } from '../state/use-throttled-refresh';
import { EngineCard } from './engine-card';

/**
 * The engine's own metrics beside the stream, one card per source whose connection names a
 * metrics URL. Each card stands alone: a URL that is down or wrong says so on its card only.
 */
export function EnginePanel() {
  const { frame } = useFrameState();
  const [list, setList] = useState<EngineReconciliation[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setList(await bridge().getEngineReconciliation());
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, []);
  useThrottledRefresh(load, 2000, frame?.n, true);

  return (
    <section className="engine-panel" aria-label="Engine metrics" data-testid="engine-panel">
      <h2>Engine metrics beside the stream</h2>
      {error && <div className="error">Could not read the engine metrics: {error}</div>}
      {list?.length === 0 && (
        <p className="muted" data-testid="engine-none">
          No connection names its engine&apos;s metrics URL. Add one under Connections (vLLM serves
          it at http://HOST:8000/metrics) to compare the engine&apos;s own figures with the events.
        </p>
      )}
      {list && list.length > 0 && (
        <div className="engine-cards">
          {list.map((r) => (
            <EngineCard key={r.source} r={r} />
          ))}
        </div>
      )}
    </section>
  );
}

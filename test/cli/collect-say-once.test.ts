// collect's stderr says a source's state once per change: a hint whose count of silent seconds
// grows each tick (a source down overnight) is one line, not one a second.
import { describe, expect, it } from 'vitest';
import { sayOnce } from '../../electron/cli/collect-command';

describe("collect's state lines", () => {
  it('say a hint once while only its seconds grow, and again when it changes', () => {
    const lines: string[] = [];
    const say = sayOnce((l) => lines.push(l));
    for (let s = 10; s < 100; s++) {
      say(
        'state:a',
        `a: connecting (never connected to tcp://127.0.0.1:1 in ${s} s: is the engine running?)`,
      );
    }
    say('state:b', 'b: stalled (no messages for 10 s on tcp://h:5557)');
    say('state:a', 'a: connected');
    say('state:a', 'a: connected');
    say('state:a', 'a: stalled (no messages for 10 s on tcp://127.0.0.1:1)');
    say('state:a', 'a: stalled (no messages for 11 s on tcp://127.0.0.1:1)');
    say('state:a', null);
    say('state:a', 'a: connected');
    expect(lines).toEqual([
      'a: connecting (never connected to tcp://127.0.0.1:1 in 10 s: is the engine running?)\n',
      'b: stalled (no messages for 10 s on tcp://h:5557)\n',
      'a: connected\n',
      'a: stalled (no messages for 10 s on tcp://127.0.0.1:1)\n',
      'a: connected\n',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  distinctNames,
  sourceLabel,
  sourceLabels,
  sourceNameMap,
  sourceOptions,
  sourceTitle,
  viewSourceLabels,
} from '../../renderer/lib/source-names';

const sources = [
  { id: '5f2c7c10', name: 'e2e-engine' },
  { id: '5f2c7c10#1', name: 'e2e-engine #1' },
  { id: 'cli-1', name: '' },
];

describe('source names', () => {
  it('shows the name the user gave a source, and the id when the name is unknown', () => {
    const names = sourceNameMap(sources);
    expect(sourceLabel(names, '5f2c7c10')).toBe('e2e-engine');
    expect(sourceLabel(names, 'cli-1')).toBe('cli-1');
    expect(sourceLabel(names, 'from-a-session')).toBe('from-a-session');
    expect(sourceLabels(names, ['5f2c7c10#1', 'gone'])).toBe('e2e-engine #1, gone');
    expect(sourceTitle(names, '5f2c7c10')).toBe('e2e-engine (5f2c7c10)');
    expect(sourceTitle(names, 'cli-1')).toBe('cli-1');
  });

  it('offers filter options with the id as value and the name as label', () => {
    const names = sourceNameMap(sources);
    expect(sourceOptions(names, ['5f2c7c10', 'cli-1'])).toEqual([
      { value: '5f2c7c10', label: 'e2e-engine' },
      { value: 'cli-1', label: 'cli-1' },
    ]);
  });

  it('tells apart two sources that carry the same name by adding their ids', () => {
    const names = sourceNameMap([
      { id: 'a', name: 'vllm' },
      { id: 'b', name: 'vllm' },
    ]);
    expect(sourceOptions(names, ['a', 'b']).map((o) => o.label)).toEqual(['vllm (a)', 'vllm (b)']);
  });

  it('gives every view the same told-apart labels, and a title that names the id once', () => {
    const labels = distinctNames(
      sourceNameMap([
        { id: 'a', name: 'vllm' },
        { id: 'b', name: 'vllm' },
        { id: 'c', name: 'sglang' },
      ]),
    );
    expect([...labels]).toEqual([
      ['a', 'vllm (a)'],
      ['b', 'vllm (b)'],
      ['c', 'sglang'],
    ]);
    expect(sourceTitle(labels, 'a')).toBe('vllm (a)');
    expect(sourceTitle(labels, 'c')).toBe('sglang (c)');
    // The filters' options add nothing more to labels already apart.
    expect(sourceOptions(labels, ['a', 'b']).map((o) => o.label)).toEqual(['vllm (a)', 'vllm (b)']);
  });

  it('tells a removed source from another of its name, present or removed (a connection added again)', () => {
    const labels = viewSourceLabels(
      [
        { id: '70e01516', name: 'beta' },
        { id: 'a1', name: 'alpha' },
      ],
      [
        { id: '338f7e08', name: 'beta' },
        { id: 'g1', name: 'gamma' },
      ],
    );
    expect([...labels]).toEqual([
      ['70e01516', 'beta (70e01516)'],
      ['a1', 'alpha'],
      ['338f7e08', 'beta (338f7e08)'],
      ['g1', 'gamma'],
    ]);
  });
});

import { SUPPORT_BUNDLE_PLACEHOLDER_CLEANUP_MS } from '@granary/contracts';
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  bundleCreationReducer,
  creationsRunning,
  initialBundleCreation,
  useBundleCreation,
} from './useBundleCreation.ts';

describe('spec 001 §4 support bundle creation', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('spec 001 §4: a placeholder with in-progress status appears at once; the per-service counter goes up, then down', () => {
    let s = bundleCreationReducer(initialBundleCreation, {
      type: 'start',
      service: 'artifactory',
      name: 'b1',
      description: '',
      at: '2026-01-01T00:00:00Z',
    });
    s = bundleCreationReducer(s, {
      type: 'start',
      service: 'artifactory',
      name: 'b2',
      description: '',
      at: '2026-01-01T00:00:01Z',
    });
    expect(s.placeholders.map((p) => [p.name, p.status])).toEqual([
      ['b2', 'in progress'],
      ['b1', 'in progress'],
    ]);
    expect(s.counters.artifactory).toBe(2);
    s = bundleCreationReducer(s, { type: 'finish', service: 'artifactory' });
    expect(creationsRunning(s)).toBe(1);
    s = bundleCreationReducer(s, { type: 'finish', service: 'artifactory' });
    s = bundleCreationReducer(s, { type: 'finish', service: 'artifactory' });
    expect(s.counters.artifactory).toBe(0);
    expect(s.placeholders).toHaveLength(2);
    expect(bundleCreationReducer(s, { type: 'clear' }).placeholders).toEqual([]);
  });

  it('spec 001 §4, §9: when none remain, after 3000 ms the placeholders are removed and the list is reloaded', () => {
    expect(SUPPORT_BUNDLE_PLACEHOLDER_CLEANUP_MS).toBe(3000);
    const reload = vi.fn();
    const { result } = renderHook(() => useBundleCreation(reload));
    act(() => result.current.start('artifactory', 'first', ''));
    act(() => result.current.start('artifactory', 'second', ''));
    act(() => result.current.finish('artifactory'));
    // one still running: nothing is cleaned up, however long
    act(() => vi.advanceTimersByTime(10_000));
    expect(result.current.state.placeholders).toHaveLength(2);
    expect(reload).not.toHaveBeenCalled();
    act(() => result.current.finish('artifactory'));
    act(() => vi.advanceTimersByTime(2_999));
    expect(result.current.state.placeholders).toHaveLength(2);
    expect(reload).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.state.placeholders).toEqual([]);
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('spec 001 §4: a creation started during the wait postpones the clean-up until it finishes too', () => {
    const reload = vi.fn();
    const { result } = renderHook(() => useBundleCreation(reload));
    act(() => result.current.start('artifactory', 'a', ''));
    act(() => result.current.finish('artifactory'));
    act(() => vi.advanceTimersByTime(2_000));
    act(() => result.current.start('artifactory', 'b', ''));
    act(() => vi.advanceTimersByTime(5_000));
    expect(reload).not.toHaveBeenCalled();
    act(() => result.current.finish('artifactory'));
    act(() => vi.advanceTimersByTime(3_000));
    expect(reload).toHaveBeenCalledTimes(1);
    expect(result.current.state.placeholders).toEqual([]);
  });
});

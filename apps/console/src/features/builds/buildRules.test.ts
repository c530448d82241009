import { describe, expect, it } from 'vitest';
import { userData } from '../../shared/test/users.ts';
import {
  canManageBuilds,
  deleteRunsBody,
  formatDuration,
  latestStatus,
  PROMOTION_DEFAULTS,
  promotionBody,
  requestedByText,
  retentionBody,
  runTabOf,
  vulnerabilityBadges,
} from './buildRules.ts';

describe('builds rules (issue 19)', () => {
  it('issue 19: only administrators get the delete and retention actions (the server checks build permissions too)', () => {
    expect(canManageBuilds(userData({ admin: true }))).toBe(true);
    expect(canManageBuilds(userData({ admin: false }))).toBe(false);
    expect(canManageBuilds(null)).toBe(false);
  });

  it("spec 000 §4: Artifactory's run tab names from old build links open the matching tab", () => {
    expect(runTabOf('published')).toBe('modules');
    expect(runTabOf('release-history')).toBe('history');
    expect(runTabOf('diff')).toBe('diff');
    expect(runTabOf(undefined)).toBe('modules');
    expect(runTabOf('nonsense')).toBe('modules');
  });

  it('issue 19: the promotion body carries status, comment, target, copy or move, dependencies, dry run; empty fields left out', () => {
    expect(promotionBody(PROMOTION_DEFAULTS)).toEqual({
      dryRun: true,
      copy: true,
      artifacts: true,
      dependencies: false,
      failFast: true,
      status: 'Released',
    });
    expect(
      promotionBody({
        ...PROMOTION_DEFAULTS,
        status: ' ',
        comment: ' ok ',
        targetRepo: 'rel',
        operation: 'move',
        dryRun: false,
      }),
    ).toEqual({
      dryRun: false,
      copy: false,
      artifacts: true,
      dependencies: false,
      failFast: true,
      comment: 'ok',
      targetRepo: 'rel',
    });
  });

  it('issue 19: retention by count and by age (days → minimumBuildDate), artifacts optionally deleted', () => {
    const now = Date.parse('2030-03-10T00:00:00Z');
    expect(retentionBody({ count: 5, days: 7, deleteArtifacts: true, keep: ['3'] }, now)).toEqual({
      count: 5,
      minimumBuildDate: Date.parse('2030-03-03T00:00:00Z'),
      deleteBuildArtifacts: true,
      buildNumbersNotToBeDiscarded: ['3'],
    });
    expect(retentionBody({ count: null, days: null, deleteArtifacts: false, keep: [] }, now)).toEqual({
      deleteBuildArtifacts: false,
      buildNumbersNotToBeDiscarded: [],
    });
  });

  it('issue 19: deleting every run deletes the build (deleteAll), a selection deletes those numbers', () => {
    expect(deleteRunsBody('b', ['1'], ['1', '2'], false)).toEqual({
      buildName: 'b',
      buildNumbers: ['1'],
      deleteArtifacts: false,
      deleteAll: false,
    });
    expect(deleteRunsBody('b', ['2', '1'], ['1', '2'], true)).toEqual({
      buildName: 'b',
      buildNumbers: [],
      deleteArtifacts: true,
      deleteAll: true,
    });
  });

  it('issue 19: requestedBy chains read nearest first; vulnerability counts worst first, null when not scanned', () => {
    expect(requestedByText([['express:4', 'app:1'], []])).toEqual(['express:4 ← app:1']);
    expect(vulnerabilityBadges(null)).toBeNull();
    expect(vulnerabilityBadges({ critical: 0, high: 2, medium: 0, low: 1, unknown: 0 })).toEqual([
      ['high', 2],
      ['low', 1],
    ]);
  });

  it('durations and the latest status', () => {
    expect(formatDuration(450)).toBe('450 ms');
    expect(formatDuration(83_000)).toBe('1m 23s');
    expect(formatDuration(3_900_000)).toBe('1h 5m');
    expect(formatDuration(null)).toBe('');
    expect(latestStatus([{ status: 'Staged' }, { status: 'Released' }])).toBe('Released');
    expect(latestStatus([])).toBeNull();
  });
});

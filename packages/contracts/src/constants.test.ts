import { describe, expect, it } from 'vitest';
import {
  CHUNK_LOAD_TIMEOUT_MS,
  DEFAULT_PROJECT,
  EXCLUDED_PACKAGE_TYPES,
  GRAPHQL_DEFAULT_PAGE_SIZE,
  HIDDEN_REPOSITORY_TYPES,
  IDLE_TIMEOUT_MS,
  isMavenLike,
  MICROFRONTEND_MOUNT_MAX_MS,
  NOTIFICATION_DURATIONS_MS,
  PACKAGE_SEARCH_MIN_CHARS,
  PACKAGE_TYPE_ALIASES,
  PATH_AFTER_LOGIN_VALIDITY_MS,
  PROJECT_KEY_MAX_LENGTH,
  STORAGE_KEYS,
} from './constants.ts';
import { errorEnvelopeSchema } from './errors.ts';

describe('spec constants', () => {
  it('spec 000 §9: chunk timeout 120000 ms, mount maximum 100000 ms, idle timeout 60000 ms, path-after-login 1 hour', () => {
    expect(CHUNK_LOAD_TIMEOUT_MS).toBe(120000);
    expect(MICROFRONTEND_MOUNT_MAX_MS).toBe(100000);
    expect(IDLE_TIMEOUT_MS).toBe(60000);
    expect(PATH_AFTER_LOGIN_VALIDITY_MS).toBe(3600000);
  });

  it('spec 000 §9: hidden repository types are exactly buildinfo, support, pipeinfo, undefined, supportbundle, p2, vcs', () => {
    expect([...HIDDEN_REPOSITORY_TYPES].sort()).toEqual(
      ['buildinfo', 'p2', 'pipeinfo', 'support', 'supportbundle', 'undefined', 'vcs'].sort(),
    );
  });

  it('spec 001 §9: type aliases golang→go, gav→maven, deb→debian, rubygems→gems, terraform module/provider→terraform', () => {
    expect(PACKAGE_TYPE_ALIASES.golang).toBe('go');
    expect(PACKAGE_TYPE_ALIASES.gav).toBe('maven');
    expect(PACKAGE_TYPE_ALIASES.deb).toBe('debian');
    expect(PACKAGE_TYPE_ALIASES.rubygems).toBe('gems');
    expect(PACKAGE_TYPE_ALIASES['terraform module']).toBe('terraform');
    expect(PACKAGE_TYPE_ALIASES['terraform provider']).toBe('terraform');
    expect(EXCLUDED_PACKAGE_TYPES).toEqual(['dockerV1', 'terraformBackend']);
  });

  it('spec 001 §9: package search needs 3 characters, GraphQL page size 100, project key at most 128, default project dflt', () => {
    expect(PACKAGE_SEARCH_MIN_CHARS).toBe(3);
    expect(GRAPHQL_DEFAULT_PAGE_SIZE).toBe(100);
    expect(PROJECT_KEY_MAX_LENGTH).toBe(128);
    expect(DEFAULT_PROJECT).toEqual({ name: 'Default Project', key: 'dflt' });
  });

  it('spec 000 §9: notifications last 4500 and 3000 ms; storage keys path_after_login, personalizationData, RTonlyRemoved', () => {
    expect(NOTIFICATION_DURATIONS_MS).toEqual([4500, 3000]);
    expect(Object.values(STORAGE_KEYS)).toEqual(['path_after_login', 'personalizationData', 'RTonlyRemoved']);
  });
});

describe('error envelope', () => {
  it('accepts {errors: [{status, code, message}]} and refuses an empty list', () => {
    expect(
      errorEnvelopeSchema.safeParse({ errors: [{ status: 404, code: 'NOT_FOUND', message: 'x' }] }).success,
    ).toBe(true);
    expect(errorEnvelopeSchema.safeParse({ errors: [] }).success).toBe(false);
  });
});

describe('package types', () => {
  it('issue 13 §3: the Maven-like package types (release/snapshot policies) are named once for server and console', () => {
    for (const type of ['maven', 'gradle', 'ivy', 'sbt']) expect(isMavenLike(type), type).toBe(true);
    for (const type of ['npm', 'docker', 'generic', 'Maven']) expect(isMavenLike(type), type).toBe(false);
  });
});

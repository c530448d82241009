import { describe, expect, it } from 'vitest';
import { customIssueToOsv, isVulnerable, type OsvRecord, severityOf } from './osv.ts';

const rec = (
  ecosystem: string,
  name: string,
  affected: Partial<OsvRecord['affected'] extends (infer A)[] | undefined ? A : never>,
): OsvRecord => ({
  id: `TEST-${ecosystem}-${name}`,
  modified: '2024-01-01T00:00:00Z',
  affected: [{ package: { ecosystem, name }, ...affected }],
});
const eco = (events: object[]) => ({ ranges: [{ type: 'ECOSYSTEM', events }] });

/** [record, component ecosystem, name, version, affected?] — answers worked out from each ecosystem's own order. */
const TABLE: [OsvRecord, string, string, string, boolean][] = [
  // npm (SEMVER ranges)
  [
    rec('npm', 'lodash', {
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }],
    }),
    'npm',
    'lodash',
    '4.17.20',
    true,
  ],
  [
    rec('npm', 'lodash', {
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }],
    }),
    'npm',
    'lodash',
    '4.17.21',
    false,
  ],
  [
    rec('npm', 'lodash', {
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }],
    }),
    'npm',
    'lodash',
    '4.17.21-rc.1',
    true,
  ],
  [
    rec('npm', '@scope/pkg', {
      ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { last_affected: '1.2.0' }] }],
    }),
    'npm',
    '@scope/pkg',
    '1.2.0',
    true,
  ],
  [
    rec('npm', '@scope/pkg', {
      ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { last_affected: '1.2.0' }] }],
    }),
    'npm',
    '@scope/pkg',
    '1.2.1',
    false,
  ],
  [
    rec('npm', '@scope/pkg', {
      ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { last_affected: '1.2.0' }] }],
    }),
    'npm',
    '@scope/pkg',
    '0.9.0',
    false,
  ],
  [
    rec('npm', 'multi', {
      ranges: [
        {
          type: 'SEMVER',
          events: [{ introduced: '1.0.0' }, { fixed: '1.0.5' }, { introduced: '2.0.0' }, { fixed: '2.1.0' }],
        },
      ],
    }),
    'npm',
    'multi',
    '1.5.0',
    false,
  ],
  [
    rec('npm', 'multi', {
      ranges: [
        {
          type: 'SEMVER',
          events: [{ introduced: '1.0.0' }, { fixed: '1.0.5' }, { introduced: '2.0.0' }, { fixed: '2.1.0' }],
        },
      ],
    }),
    'npm',
    'multi',
    '2.0.9',
    true,
  ],
  [rec('npm', 'listed', { versions: ['0.1.0', '0.1.1'] }), 'npm', 'listed', '0.1.1', true],
  [rec('npm', 'listed', { versions: ['0.1.0', '0.1.1'] }), 'npm', 'listed', '0.1.2', false],
  [
    rec('npm', 'gitonly', { ranges: [{ type: 'GIT', events: [{ introduced: '0' }, { fixed: 'abcdef' }] }] }),
    'npm',
    'gitonly',
    '1.0.0',
    false,
  ],
  // PyPI (PEP 440, PEP 503 names)
  [rec('PyPI', 'Django', eco([{ introduced: '4.0' }, { fixed: '4.0.2' }])), 'PyPI', 'django', '4.0.1', true],
  [rec('PyPI', 'Django', eco([{ introduced: '4.0' }, { fixed: '4.0.2' }])), 'PyPI', 'Django', '4.0.2', false],
  [
    rec('PyPI', 'Django', eco([{ introduced: '4.0' }, { fixed: '4.0.2' }])),
    'PyPI',
    'django',
    '4.0rc1',
    false,
  ],
  [
    rec('PyPI', 'zope.interface', eco([{ introduced: '0' }, { fixed: '5.0' }])),
    'PyPI',
    'Zope_Interface',
    '4.7.2',
    true,
  ],
  [
    rec('PyPI', 'requests', eco([{ introduced: '2.3.0' }, { fixed: '2.31.0' }])),
    'PyPI',
    'requests',
    '2.31.0.dev1',
    true,
  ],
  // Maven
  [
    rec(
      'Maven',
      'org.apache.logging.log4j:log4j-core',
      eco([{ introduced: '2.0-beta9' }, { fixed: '2.15.0' }]),
    ),
    'Maven',
    'org.apache.logging.log4j:log4j-core',
    '2.14.1',
    true,
  ],
  [
    rec(
      'Maven',
      'org.apache.logging.log4j:log4j-core',
      eco([{ introduced: '2.0-beta9' }, { fixed: '2.15.0' }]),
    ),
    'Maven',
    'org.apache.logging.log4j:log4j-core',
    '2.0-beta8',
    false,
  ],
  [
    rec(
      'Maven',
      'org.apache.logging.log4j:log4j-core',
      eco([{ introduced: '2.0-beta9' }, { fixed: '2.15.0' }]),
    ),
    'Maven',
    'org.apache.logging.log4j:log4j-core',
    '2.15.0',
    false,
  ],
  [
    rec('Maven', 'com.example:lib', eco([{ introduced: '0' }, { fixed: '1.0' }])),
    'Maven',
    'com.example:lib',
    '1.0-SNAPSHOT',
    true,
  ],
  [
    rec('Maven', 'com.example:lib', eco([{ introduced: '0' }, { fixed: '1.0' }])),
    'Maven',
    'com.example:lib',
    '1.0.0',
    false,
  ],
  // Go (v prefixes on either side)
  [
    rec('Go', 'golang.org/x/net', eco([{ introduced: '0' }, { fixed: '0.7.0' }])),
    'Go',
    'golang.org/x/net',
    'v0.6.0',
    true,
  ],
  [
    rec('Go', 'golang.org/x/net', eco([{ introduced: '0' }, { fixed: '0.7.0' }])),
    'Go',
    'golang.org/x/net',
    'v0.7.0',
    false,
  ],
  [
    rec('Go', 'golang.org/x/net', eco([{ introduced: '0' }, { fixed: '0.7.0' }])),
    'Go',
    'golang.org/x/net',
    'v0.0.0-20220906165146-f3363e06e74c',
    true,
  ],
  // crates.io
  [
    rec('crates.io', 'smallvec', eco([{ introduced: '0.6.3' }, { fixed: '0.6.10' }])),
    'crates.io',
    'smallvec',
    '0.6.9',
    true,
  ],
  [
    rec('crates.io', 'smallvec', eco([{ introduced: '0.6.3' }, { fixed: '0.6.10' }])),
    'crates.io',
    'smallvec',
    '0.6.10',
    false,
  ],
  // RubyGems
  [
    rec('RubyGems', 'rails', eco([{ introduced: '7.0.0' }, { fixed: '7.0.4.1' }])),
    'RubyGems',
    'rails',
    '7.0.4',
    true,
  ],
  [
    rec('RubyGems', 'rails', eco([{ introduced: '7.0.0' }, { fixed: '7.0.4.1' }])),
    'RubyGems',
    'rails',
    '7.0.0.rc1',
    false,
  ],
  [
    rec('RubyGems', 'rails', eco([{ introduced: '7.0.0' }, { fixed: '7.0.4.1' }])),
    'RubyGems',
    'rails',
    '7.0.4.1',
    false,
  ],
  // NuGet (case-insensitive names and labels, four parts)
  [
    rec('NuGet', 'Newtonsoft.Json', eco([{ introduced: '0' }, { fixed: '13.0.1' }])),
    'NuGet',
    'newtonsoft.json',
    '12.0.3',
    true,
  ],
  [
    rec('NuGet', 'Newtonsoft.Json', eco([{ introduced: '0' }, { fixed: '13.0.1' }])),
    'NuGet',
    'Newtonsoft.Json',
    '13.0.1.0',
    false,
  ],
  [
    rec('NuGet', 'Newtonsoft.Json', eco([{ introduced: '0' }, { fixed: '13.0.1' }])),
    'NuGet',
    'Newtonsoft.Json',
    '13.0.1-BETA1',
    true,
  ],
  // Debian (epochs, ~, release suffixes both ways)
  [
    rec('Debian:12', 'openssl', eco([{ introduced: '0' }, { fixed: '3.0.11-1~deb12u2' }])),
    'Debian:12',
    'openssl',
    '3.0.11-1~deb12u1',
    true,
  ],
  [
    rec('Debian:12', 'openssl', eco([{ introduced: '0' }, { fixed: '3.0.11-1~deb12u2' }])),
    'Debian:12',
    'openssl',
    '3.0.11-1',
    false,
  ],
  [
    rec('Debian:12', 'openssl', eco([{ introduced: '0' }, { fixed: '3.0.11-1~deb12u2' }])),
    'Debian',
    'openssl',
    '3.0.9-1',
    true,
  ],
  [
    rec('Debian:12', 'openssl', eco([{ introduced: '0' }, { fixed: '3.0.11-1~deb12u2' }])),
    'Debian:11',
    'openssl',
    '1.1.1n-0+deb11u4',
    false,
  ],
  [
    rec('Debian', 'bash', eco([{ introduced: '0' }, { fixed: '1:5.2-1' }])),
    'Debian:12',
    'bash',
    '5.2.15-2',
    true,
  ],
  // Alpine
  [
    rec('Alpine:v3.18', 'busybox', eco([{ introduced: '0' }, { fixed: '1.36.1-r1' }])),
    'Alpine:v3.18',
    'busybox',
    '1.36.1-r0',
    true,
  ],
  [
    rec('Alpine:v3.18', 'busybox', eco([{ introduced: '0' }, { fixed: '1.36.1-r1' }])),
    'Alpine',
    'busybox',
    '1.36.1-r1',
    false,
  ],
  [
    rec('Alpine:v3.18', 'busybox', eco([{ introduced: '0' }, { fixed: '1.36.1-r1' }])),
    'Alpine:v3.18',
    'busybox',
    '1.36.1_rc1-r5',
    true,
  ],
  // limit events
  [
    rec('npm', 'limited', {
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { limit: '2.0.0' }] }],
    }),
    'npm',
    'limited',
    '1.9.0',
    true,
  ],
  [
    rec('npm', 'limited', {
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { limit: '2.0.0' }] }],
    }),
    'npm',
    'limited',
    '2.0.0',
    false,
  ],
  // another package, and a withdrawn record
  [
    rec('npm', 'lodash', { ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }] }),
    'npm',
    'lodash-es',
    '1.0.0',
    false,
  ],
  [
    {
      ...rec('npm', 'gone', { ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }] }),
      withdrawn: '2024-02-01T00:00:00Z',
    },
    'npm',
    'gone',
    '1.0.0',
    false,
  ],
];

describe('issue 16: OSV IsVulnerable with each ecosystem version order', () => {
  it('issue 16: OSV records with known answers match in every ecosystem (100 % pass)', () => {
    const failures = TABLE.filter(([r, e, n, v, want]) => (isVulnerable(r, e, n, v) !== null) !== want).map(
      ([r, e, n, v, want]) => `${r.id} ${e} ${n}@${v}: expected ${want ? 'affected' : 'not affected'}`,
    );
    expect(failures).toEqual([]);
    expect(new Set(TABLE.map(([, e]) => e.split(':')[0])).size).toBe(9);
  });

  it('issue 16: the fixed versions of the matching ranges are reported', () => {
    const r = rec('npm', 'multi', {
      ranges: [
        { type: 'SEMVER', events: [{ introduced: '1.0.0' }, { fixed: '1.0.5' }] },
        { type: 'SEMVER', events: [{ introduced: '2.0.0' }, { fixed: '2.1.0' }] },
      ],
    });
    expect(isVulnerable(r, 'npm', 'multi', '2.0.1')).toEqual(['2.1.0']);
  });

  it('issue 16: severity from a CVSS v3/v4 vector, else the record own word (GHSA MODERATE is Medium), else Unknown', () => {
    const base = rec('npm', 'x', {});
    expect(
      severityOf({
        ...base,
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
      }),
    ).toEqual({
      severity: 'Critical',
      score: 9.8,
      vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    });
    expect(
      severityOf({
        ...base,
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N' }],
      }).severity,
    ).toBe('Low');
    expect(
      severityOf({
        ...base,
        severity: [
          { type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' },
        ],
      }).score,
    ).toBe(9.3);
    expect(severityOf({ ...base, database_specific: { severity: 'MODERATE' } }).severity).toBe('Medium');
    expect(severityOf({ ...base, affected: [{ ecosystem_specific: { severity: 'HIGH' } }] }).severity).toBe(
      'High',
    );
    expect(severityOf(base).severity).toBe('Unknown');
  });

  it('spec 001 §7: a custom issue range ">=1.0.0 <1.2.3" and exact versions match like an OSV record', () => {
    const r = customIssueToOsv(
      {
        id: 'CUSTOM-1',
        summary: 's',
        severity: 'High',
        cves: [],
        components: [
          {
            ecosystem: 'npm',
            name: 'left-pad',
            vulnerableVersions: ['>=1.0.0 <1.2.3', '0.5.0'],
            fixedVersions: [],
          },
        ],
      },
      '2024-01-01T00:00:00Z',
    );
    expect(isVulnerable(r, 'npm', 'left-pad', '1.2.2')).not.toBeNull();
    expect(isVulnerable(r, 'npm', 'left-pad', '1.2.3')).toBeNull();
    expect(isVulnerable(r, 'npm', 'left-pad', '0.5.0')).not.toBeNull();
    expect(isVulnerable(r, 'npm', 'left-pad', '0.9.0')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { licenseFromClassifier, normaliseLicense, spdxExpression } from './licenses.ts';

describe('issue 16 "Licences": normalised to SPDX identifiers and expressions', () => {
  it.each([
    ['MIT', 'MIT'],
    ['MIT License', 'MIT'],
    ['Apache 2.0', 'Apache-2.0'],
    ['The Apache Software License, Version 2.0', 'Apache-2.0'],
    ['BSD', 'BSD-2-Clause'],
    ['mit or Apache-2.0', 'MIT OR Apache-2.0'],
    ['(MIT OR Apache-2.0)', 'MIT OR Apache-2.0'],
    ['Apache-2.0, MIT', 'Apache-2.0 AND MIT'],
    ['Eclipse Public License 2.0 (EPL-2.0)', 'EPL-2.0'],
    ['GNU General Public License v2 or later (GPLv2+)', 'GPL-2.0-or-later'],
    ['CDDL + GPLv2 with classpath exception', 'CDDL-1.1 OR GPL-2.0-only WITH Classpath-exception-2.0'],
    ['Python Software Foundation License', 'PSF-2.0'],
  ])('issue 16 "Licences": %j → %j', (raw, spdx) => {
    expect(normaliseLicense(raw)).toBe(spdx);
  });

  it('issue 16 "Licences": unknown licences are kept verbatim; empty ones dropped', () => {
    expect(normaliseLicense('  Acme   Proprietary v1 ')).toBe('Acme Proprietary v1');
    expect(normaliseLicense('Public Domain')).toBe('Public Domain');
    expect(normaliseLicense('')).toBeNull();
    expect(normaliseLicense(undefined)).toBeNull();
  });

  it('issue 16 "Licences": PyPI licence classifiers name their licence; others none', () => {
    expect(licenseFromClassifier('License :: OSI Approved :: MIT License')).toBe('MIT');
    expect(licenseFromClassifier('License :: OSI Approved :: Apache Software License')).toBe('Apache-2.0');
    expect(licenseFromClassifier('License :: OSI Approved')).toBeNull();
    expect(licenseFromClassifier('Programming Language :: Python')).toBeNull();
  });

  it('issue 16 "Licences": a string is told a valid SPDX expression, with its ids and exceptions (custom licences use it)', () => {
    expect(spdxExpression('MIT OR (Apache-2.0 AND GPL-2.0-only WITH Classpath-exception-2.0)')).toEqual({
      valid: true,
      ids: ['MIT', 'Apache-2.0', 'GPL-2.0-only'],
      exceptions: ['Classpath-exception-2.0'],
    });
    expect(spdxExpression('LicenseRef-acme').ids).toEqual(['LicenseRef-acme']);
    expect(spdxExpression('Acme Proprietary').valid).toBe(false);
  });
});

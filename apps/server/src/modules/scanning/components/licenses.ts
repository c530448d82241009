import correct from 'spdx-correct';
import parse from 'spdx-expression-parse';

type SpdxNode = parse.SpdxNode;

/**
 * Licences as package metadata spells them, normalised to SPDX identifiers and expressions (issue 16
 * "Licences"): `MIT License` → `MIT`, `Apache 2.0` → `Apache-2.0`, `MIT or Apache-2.0` →
 * `MIT OR Apache-2.0`. What cannot be read as SPDX is kept verbatim (trimmed); custom licences are
 * the pipeline's (admin-defined), matched on these strings.
 */

/** Names spdx-correct gets wrong or does not know, as PyPI classifiers and Maven POMs spell them. */
const KNOWN: Record<string, string> = {
  'python software foundation license': 'PSF-2.0',
  'psf license': 'PSF-2.0',
  'isc license (iscl)': 'ISC',
  'isc license': 'ISC',
  'zope public license': 'ZPL-2.1',
  'cddl + gplv2 with classpath exception': 'CDDL-1.1 OR GPL-2.0-only WITH Classpath-exception-2.0',
  'cddl+gpl license': 'CDDL-1.1 OR GPL-2.0-only WITH Classpath-exception-2.0',
  'gpl2 w/ cpe': 'GPL-2.0-only WITH Classpath-exception-2.0',
  'eclipse public license 2.0': 'EPL-2.0',
  'eclipse public license - v 2.0': 'EPL-2.0',
  'eclipse public license v2.0': 'EPL-2.0',
  'eclipse distribution license - v 1.0': 'BSD-3-Clause',
  'edl 1.0': 'BSD-3-Clause',
  'gnu general public license v2 or later (gplv2+)': 'GPL-2.0-or-later',
  'gnu general public license v3 or later (gplv3+)': 'GPL-3.0-or-later',
  'gnu general public license v2 (gplv2)': 'GPL-2.0-only',
  'gnu general public license v3 (gplv3)': 'GPL-3.0-only',
  'gnu lesser general public license v2 or later (lgplv2+)': 'LGPL-2.0-or-later',
  'gnu lesser general public license v3 or later (lgplv3+)': 'LGPL-3.0-or-later',
  'gnu lesser general public license v3 (lgplv3)': 'LGPL-3.0-only',
  'gnu affero general public license v3': 'AGPL-3.0-only',
  'mit/x11': 'MIT',
  'gnu affero general public license v3 or later (agplv3+)': 'AGPL-3.0-or-later',
};

/** Words joining licences in free text, and the SPDX operator each means. */
const JOINERS: [RegExp, 'OR' | 'AND'][] = [
  [/\s+or\s+|\s*\/\s*|\s*\|\s*/i, 'OR'],
  [/\s+and\s+|\s*,\s*|\s*;\s*/i, 'AND'],
];

/** An SPDX expression, as an AST renders canonically (upper-case operators, parentheses where needed). */
function render(node: SpdxNode, parent?: 'and' | 'or'): string {
  if ('license' in node)
    return `${node.license}${node.plus ? '+' : ''}${node.exception ? ` WITH ${node.exception}` : ''}`;
  const text = `${render(node.left, node.conjunction)} ${node.conjunction.toUpperCase()} ${render(node.right, node.conjunction)}`;
  return parent && parent !== node.conjunction ? `(${text})` : text;
}

function tryParse(expression: string): SpdxNode | null {
  try {
    return parse(expression);
  } catch {
    return null;
  }
}

/** Whether `value` is a valid SPDX licence expression, and the licence ids (and `LicenseRef-`s) in it. */
export function spdxExpression(value: string): { valid: boolean; ids: string[]; exceptions: string[] } {
  const ast = tryParse(value.trim());
  if (!ast) return { valid: false, ids: [], exceptions: [] };
  const ids = new Set<string>();
  const exceptions = new Set<string>();
  const walk = (node: SpdxNode) => {
    if ('license' in node) {
      ids.add(node.plus ? `${node.license}+` : node.license);
      if (node.exception) exceptions.add(node.exception);
    } else {
      walk(node.left);
      walk(node.right);
    }
  };
  walk(ast);
  return { valid: true, ids: [...ids], exceptions: [...exceptions] };
}

/** Whether `value` is a valid SPDX licence expression (a single id is one). */
export const isSpdxExpression = (value: string) => tryParse(value.trim()) !== null;

/** One licence name (no joiners) as SPDX, or null; `guess`: let spdx-correct guess from the words. */
function single(raw: string, guess = true): string | null {
  const text = raw.trim().replace(/^the\s+/i, '');
  if (!text) return null;
  const parsed = tryParse(text);
  if (parsed) return render(parsed);
  const known = KNOWN[text.toLowerCase().replace(/\s+/g, ' ')];
  if (known) return known;
  // A name with its abbreviation in parentheses (PyPI classifiers): the abbreviation is the surer part.
  if (!guess) return null;
  const paren = /\(([^()]+)\)\s*$/.exec(text)?.[1];
  if (paren) {
    const inner = tryParse(paren.trim());
    if (inner) return render(inner);
    const fixed = correct(paren.trim(), { upgrade: true });
    if (fixed) return fixed;
  }
  // spdx-correct mistakes "with … exception" texts for their licence alone.
  if (/\bexception\b/i.test(text)) return null;
  return correct(text, { upgrade: true });
}

/**
 * A licence as metadata spells it → an SPDX id or expression; a string no rule reads is kept
 * verbatim (trimmed, whitespace collapsed); empty → null.
 */
export function normaliseLicense(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const text = raw.trim().replace(/\s+/g, ' ');
  if (!text || /^(unknown|none|n\/a|unlicensed|see license|see license file)$/i.test(text))
    return text ? (/^unlicensed$/i.test(text) ? 'UNLICENSED' : null) : null;
  const exact = single(text, false);
  if (exact) return exact;
  // Several licences in free text: each part must be one.
  for (const [joiner, operator] of JOINERS) {
    const parts = text.split(joiner).filter((p) => p.trim() !== '');
    if (parts.length < 2) continue;
    const normalised = parts.map((p) => single(p.replace(/^\(|\)$/g, '')));
    if (normalised.every((n): n is string => n !== null)) {
      const joined = normalised.map((n) => (/\s(AND|OR)\s/.test(n) ? `(${n})` : n)).join(` ${operator} `);
      const ast = tryParse(joined);
      if (ast) return render(ast);
    }
  }
  return single(text) ?? text;
}

/** Licences normalised, unique, in order (null and empty dropped). */
export function normaliseLicenses(raw: (string | null | undefined)[]): string[] {
  const out: string[] = [];
  for (const r of raw) {
    const n = normaliseLicense(r);
    if (n && !out.includes(n)) out.push(n);
  }
  return out;
}

/** A PyPI classifier `License :: OSI Approved :: MIT License` → `MIT` (null for other classifiers). */
export function licenseFromClassifier(classifier: string): string | null {
  const parts = classifier.split('::').map((p) => p.trim());
  if (parts[0] !== 'License' || parts.length < 2) return null;
  const name = parts.at(-1)!;
  if (parts.length === 2 && /^(OSI Approved|Other\/Proprietary License|Freely Distributable)$/.test(name))
    return name === 'Other/Proprietary License' ? 'LicenseRef-Proprietary' : null;
  if (name === 'OSI Approved') return null;
  return normaliseLicense(name);
}

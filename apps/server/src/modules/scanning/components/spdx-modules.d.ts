// spdx-correct and spdx-expression-parse ship no types; only what licences.ts uses.
declare module 'spdx-correct' {
  function correct(identifier: string, options?: { upgrade?: boolean }): string | null;
  export = correct;
}

declare module 'spdx-expression-parse' {
  namespace parse {
    interface SpdxLicenseNode {
      license: string;
      plus?: true;
      exception?: string;
    }
    interface SpdxConjunctionNode {
      left: SpdxNode;
      conjunction: 'and' | 'or';
      right: SpdxNode;
    }
    type SpdxNode = SpdxLicenseNode | SpdxConjunctionNode;
  }
  function parse(expression: string): parse.SpdxNode;
  export = parse;
}

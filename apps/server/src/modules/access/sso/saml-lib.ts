import { createRequire } from 'node:module';

/**
 * `samlify` and `@xmldom/xmldom`, loaded with `require` and typed here with what Granary uses: their
 * own declarations pull TypeScript's DOM library (`/// <reference lib="dom" />`) into the whole
 * server program, which changes the global `fetch`, `Response` and `Buffer` types everywhere.
 */
const require = createRequire(import.meta.url);

export interface XNode {
  readonly nodeType: number;
  readonly parentNode: XNode | null;
  readonly childNodes: ArrayLike<XNode>;
  readonly textContent: string | null;
}
export interface XElement extends XNode {
  readonly localName: string;
  readonly namespaceURI: string | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  getElementsByTagNameNS(ns: string, local: string): ArrayLike<XElement>;
  getElementsByTagName(name: string): ArrayLike<XElement>;
  removeChild(child: XNode): XNode;
}
export interface XDocument extends XNode {
  readonly documentElement: XElement | null;
  getElementsByTagNameNS(ns: string, local: string): ArrayLike<XElement>;
  getElementsByTagName(name: string): ArrayLike<XElement>;
}
interface XmlDom {
  DOMParser: new (options?: {
    errorHandler?: {
      warning?: (m: unknown) => void;
      error?: (m: unknown) => void;
      fatalError?: (m: unknown) => void;
    };
  }) => { parseFromString(xml: string, mime: string): XDocument };
  XMLSerializer: new () => { serializeToString(node: XNode): string };
}
export const xmldom = require('@xmldom/xmldom') as XmlDom;

export interface SamlBindingContext {
  id: string;
  context: string;
}
export interface SamlFlowResult {
  samlContent: string;
  extract: Record<string, unknown>;
}
export interface SamlEntity {
  getMetadata(): string;
  entityMeta: { getEntityID(): string };
  createLoginRequest(
    idp: SamlEntity,
    binding: 'redirect',
    opts?: { relayState?: string },
  ): SamlBindingContext;
  createLogoutRequest(
    idp: SamlEntity,
    binding: 'redirect',
    user: { logoutNameID: string; sessionIndex?: string },
    opts?: { relayState?: string },
  ): SamlBindingContext;
  parseLoginResponse(
    idp: SamlEntity,
    binding: 'post',
    request: { body: Record<string, string> },
  ): Promise<SamlFlowResult>;
  parseLoginRequest(
    sp: SamlEntity,
    binding: 'redirect',
    request: { query: Record<string, string>; octetString: string },
  ): Promise<SamlFlowResult>;
  createLoginResponse(
    sp: SamlEntity,
    requestInfo: Record<string, unknown>,
    binding: 'post',
    user: Record<string, unknown>,
    opts?: { customTagReplacement?: (template: string) => { id: string; context: string } },
  ): Promise<SamlBindingContext>;
}
interface Samlify {
  IdentityProvider(settings: Record<string, unknown>): SamlEntity;
  ServiceProvider(settings: Record<string, unknown>): SamlEntity;
  setSchemaValidator(validator: { validate: (xml: string) => Promise<unknown> }): void;
}
let samlifyLib: Samlify | undefined;
/** samlify, loaded on the first SAML call, not at start (issue 24, idle memory: 3.6 MB of heap). */
export function samlify(): Samlify {
  if (!samlifyLib) {
    samlifyLib = require('samlify') as Samlify;
    samlifyLib.setSchemaValidator({ validate: validateSamlSchema });
  }
  return samlifyLib;
}
/** Loaded on the first SAML message, not at start: 4 MB of emscripten output held for good (issue 24, idle memory). */
let xmllint: { validate: (xml: string) => Promise<unknown> } | undefined;

/**
 * Every SAML message is checked against the SAML schemas (libxml2's xmllint compiled to JavaScript by
 * emscripten). Each call instantiates a fresh emscripten module, which adds an `uncaughtException`
 * listener to the process (and a `drain` listener to stdout) holding its whole heap: measured here,
 * 200 validations left 200 listeners and 127 MB of heap. The listeners a call added are removed when it
 * ends (800 validations: no listener left, heap 11 MB). The validation itself is synchronous, so no
 * other call's listeners are touched.
 */
export async function validateSamlSchema(xml: string): Promise<unknown> {
  const before = new Set(process.listeners('uncaughtException'));
  const beforeRejection = new Set(process.listeners('unhandledRejection'));
  const beforeDrain = new Set(process.stdout.listeners('drain'));
  try {
    // The emscripten program prints its (empty) output to stdout, which is the server's log stream:
    // the validation runs synchronously inside this call, so nothing else writes while it is muted.
    xmllint ??= require('@authenio/samlify-node-xmllint') as { validate: (xml: string) => Promise<unknown> };
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof write;
    let validation: Promise<unknown>;
    try {
      validation = xmllint.validate(xml);
    } finally {
      process.stdout.write = write;
    }
    return await validation;
  } finally {
    for (const l of process.listeners('uncaughtException'))
      if (!before.has(l)) process.removeListener('uncaughtException', l);
    for (const l of process.listeners('unhandledRejection'))
      if (!beforeRejection.has(l)) process.removeListener('unhandledRejection', l);
    for (const l of process.stdout.listeners('drain'))
      if (!beforeDrain.has(l)) process.stdout.removeListener('drain', l as () => void);
  }
}

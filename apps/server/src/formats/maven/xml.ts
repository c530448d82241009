/**
 * A small, strict XML reader for POMs and maven-metadata.xml. It never expands anything but the five
 * predefined entities and character references, and refuses every DOCTYPE or ENTITY declaration, so
 * external entities (XXE) and entity expansion ("billion laughs") cannot happen. Namespace prefixes
 * are dropped: Maven documents use one default namespace.
 */

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: (XmlElement | string)[];
}

export class XmlError extends Error {}

const MAX_DEPTH = 64;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const NAME = /^[A-Za-z_:][-A-Za-z0-9_.:]*/;

function localName(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

function decode(text: string, at: number): string {
  return text.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new XmlError(`Unterminated entity reference near offset ${at}`);
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff)
        throw new XmlError(`Invalid character reference &${ref}; near offset ${at}`);
      return String.fromCodePoint(code);
    }
    const value = PREDEFINED[ref];
    if (value === undefined)
      throw new XmlError(`Undeclared entity &${ref}; (entities are not expanded) near offset ${at}`);
    return value;
  });
}

/** Parses a whole document; throws XmlError on anything malformed or on a DOCTYPE/ENTITY declaration. */
export function parseXml(input: string | Buffer): XmlElement {
  let src = typeof input === 'string' ? input : input.toString('utf8');
  if (src.charCodeAt(0) === 0xfeff) src = src.slice(1);
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;

  const fail = (what: string): never => {
    throw new XmlError(`${what} at offset ${i}`);
  };
  const skipUntil = (end: string, what: string) => {
    const j = src.indexOf(end, i);
    if (j < 0) fail(`Unterminated ${what}`);
    const body = src.slice(i, j);
    i = j + end.length;
    return body;
  };

  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const textEnd = lt < 0 ? src.length : lt;
    if (textEnd > i) {
      const text = src.slice(i, textEnd);
      const parent = stack.at(-1);
      if (parent) parent.children.push(decode(text, i));
      else if (text.trim()) fail('Text outside the root element');
      i = textEnd;
      continue;
    }
    if (src.startsWith('<!--', i)) {
      i += 4;
      skipUntil('-->', 'comment');
    } else if (src.startsWith('<![CDATA[', i)) {
      const parent = stack.at(-1) ?? fail('CDATA outside the root element');
      i += 9;
      parent.children.push(skipUntil(']]>', 'CDATA section'));
    } else if (src.startsWith('<!', i)) {
      // DOCTYPE, ENTITY, ELEMENT, ATTLIST…: never read, never expanded.
      fail('DOCTYPE and entity declarations are not allowed');
    } else if (src.startsWith('<?', i)) {
      i += 2;
      skipUntil('?>', 'processing instruction');
    } else if (src.startsWith('</', i)) {
      i += 2;
      const name = NAME.exec(src.slice(i, i + 256))?.[0] ?? fail('Malformed end tag');
      i += name.length;
      while (/\s/.test(src[i] ?? '')) i++;
      if (src[i] !== '>') fail('Malformed end tag');
      i++;
      const open = stack.pop();
      if (!open || open.name !== localName(name)) fail(`Unexpected </${name}>`);
    } else {
      i++;
      const name = NAME.exec(src.slice(i, i + 256))?.[0] ?? fail('Malformed start tag');
      i += name.length;
      const element: XmlElement = { name: localName(name), attributes: {}, children: [] };
      for (;;) {
        while (/\s/.test(src[i] ?? '')) i++;
        if (src.startsWith('/>', i) || src[i] === '>') break;
        const attr = NAME.exec(src.slice(i, i + 256))?.[0] ?? fail('Malformed attribute');
        i += attr.length;
        while (/\s/.test(src[i] ?? '')) i++;
        if (src[i] !== '=') fail('Attribute without a value');
        i++;
        while (/\s/.test(src[i] ?? '')) i++;
        const quote = src[i];
        if (quote !== '"' && quote !== "'") fail('Unquoted attribute value');
        i++;
        const value = skipUntil(quote as string, 'attribute value');
        if (value.includes('<')) fail('"<" in an attribute value');
        element.attributes[localName(attr)] = decode(value, i);
      }
      const selfClosing = src[i] === '/';
      i += selfClosing ? 2 : 1;
      const parent = stack.at(-1);
      if (parent) parent.children.push(element);
      else if (root) fail('A second root element');
      else root = element;
      if (!selfClosing) {
        stack.push(element);
        if (stack.length > MAX_DEPTH) fail(`Elements nested deeper than ${MAX_DEPTH}`);
      }
    }
  }
  if (stack.length > 0) throw new XmlError(`Unclosed <${stack.at(-1)!.name}> at the end of the document`);
  if (!root) throw new XmlError('No root element');
  return root;
}

/** The first child element named `name`. */
export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c): c is XmlElement => typeof c !== 'string' && c.name === name);
}

/** Every child element named `name`. */
export function children(el: XmlElement | undefined, name: string): XmlElement[] {
  return (el?.children ?? []).filter((c): c is XmlElement => typeof c !== 'string' && c.name === name);
}

/** The trimmed text of an element (its direct text), or of its child `name`; undefined when absent or empty. */
export function text(el: XmlElement | undefined, name?: string): string | undefined {
  const target = name === undefined ? el : child(el, name);
  if (!target) return undefined;
  const value = target.children
    .filter((c): c is string => typeof c === 'string')
    .join('')
    .trim();
  return value === '' ? undefined : value;
}

/** Escapes text for an element's content or an attribute value. */
export function escapeXml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/** A `.crate` as `cargo package` makes it: `{name}-{version}/Cargo.toml` (normalised), sources, gzipped. */
export async function makeCrate(
  name: string,
  version: string,
  opts: { toml?: string; files?: Record<string, string>; root?: string } = {},
): Promise<Buffer> {
  const root = opts.root ?? `${name}-${version}`;
  const p = pack();
  const entries: Record<string, string> = {
    [`${root}/Cargo.toml`]:
      opts.toml ??
      `[package]\nedition = "2021"\nname = "${name}"\nversion = "${version}"\ndescription = "crate ${name}"\nlicense = "MIT"\n`,
    [`${root}/src/lib.rs`]: 'pub fn hello() {}\n',
    ...Object.fromEntries(
      Object.entries(opts.files ?? {}).map(([k, v]) => [
        k.startsWith('/') || k.startsWith('..') ? k : `${root}/${k}`,
        v,
      ]),
    ),
  };
  for (const [entryName, text] of Object.entries(entries)) p.entry({ name: entryName, mode: 0o644 }, text);
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const c of p) chunks.push(c as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** The body `cargo publish` sends: u32 LE length + JSON metadata, u32 LE length + the .crate. */
export function publishBody(meta: Record<string, unknown>, crate: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify({ deps: [], features: {}, ...meta }));
  const a = Buffer.alloc(4);
  a.writeUInt32LE(json.length);
  const b = Buffer.alloc(4);
  b.writeUInt32LE(crate.length);
  return Buffer.concat([a, json, b, crate]);
}

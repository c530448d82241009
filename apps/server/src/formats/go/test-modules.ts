import yazl from 'yazl';

/** A module zip as the go command lays it out (every entry under `{module}@{version}/`), made for tests. */
export function moduleZip(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files))
    zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name, { mtime: new Date(0) });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** A library module: one package whose function returns `text`, its go.mod requiring `requires`. */
export function libraryZip(
  module: string,
  version: string,
  opts: { pkg?: string; text?: string; requires?: string[]; license?: string; goMod?: string | null } = {},
): Promise<Buffer> {
  const prefix = `${module}@${version}/`;
  const pkg =
    opts.pkg ??
    module
      .split('/')
      .filter((s) => !/^v\d+$/.test(s))
      .at(-1)!
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '');
  const goMod =
    opts.goMod === undefined
      ? `module ${module}\n\ngo 1.19\n${opts.requires?.length ? `\nrequire (\n${opts.requires.map((r) => `\t${r}\n`).join('')})\n` : ''}`
      : opts.goMod;
  const files: Record<string, string> = {
    [`${prefix}${pkg}.go`]: `package ${pkg}\n\nfunc Text() string { return ${JSON.stringify(opts.text ?? `${module} ${version}`)} }\n`,
  };
  if (goMod !== null) files[`${prefix}go.mod`] = goMod;
  if (opts.license) files[`${prefix}LICENSE`] = opts.license;
  return moduleZip(files);
}

export const MIT = `MIT License\n\nCopyright (c) 2026 Granary\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software...\n`;

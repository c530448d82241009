import type { Snippet, SnippetInput } from '../sdk/format.ts';

/**
 * Set Me Up for Cargo (issue 23): the registry in `.cargo/config.toml` as a sparse index, the token
 * in `credentials.toml` (or through `cargo login`), then add, publish and yank — each naming the
 * registry `granary` the configuration defines.
 */
export function cargoSnippets({ baseUrl, repository }: SnippetInput): Snippet[] {
  const index = `sparse+${baseUrl}/repository/${repository.key}/`;
  const where = `# registry "granary" = ${index}`;
  return [
    {
      title: 'Configure (~/.cargo/config.toml)',
      language: 'toml',
      code: [
        '[registries.granary]',
        `index = "${index}"`,
        '# cargo sends the token of credentials.toml to a registry that requires one',
        'credential-provider = "cargo:token"',
        '',
        '# Optional: resolve crates.io crates through Granary too',
        '# [source.crates-io]',
        '# replace-with = "granary"',
      ].join('\n'),
    },
    {
      title: 'Credentials (~/.cargo/credentials.toml)',
      language: 'toml',
      code: [where, '[registries.granary]', 'token = "<IDENTITY_TOKEN>"'].join('\n'),
    },
    {
      title: 'Or sign in with cargo',
      language: 'shell',
      code: [
        where,
        '# paste an identity token or API key from your Granary profile',
        'cargo login --registry granary',
      ].join('\n'),
    },
    {
      title: 'Add a dependency',
      language: 'shell',
      code: [where, 'cargo add <CRATE_NAME> --registry granary'].join('\n'),
    },
    {
      title: 'Publish',
      language: 'shell',
      code: [
        where,
        '# in Cargo.toml, publish only there: publish = ["granary"]',
        'cargo publish --registry granary',
      ].join('\n'),
    },
    {
      title: 'Yank a version',
      language: 'shell',
      code: [where, 'cargo yank --registry granary <CRATE_NAME>@<VERSION>'].join('\n'),
    },
  ];
}

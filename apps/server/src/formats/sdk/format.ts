import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/**
 * The format interface (DESIGN.md "Package formats"): one object per package format, living in
 * `formats/<id>/`. The core knows nothing of npm or Maven; it calls these hooks.
 */

export type RepositoryClass = 'local' | 'remote' | 'virtual';

/** What a format knows of the repository it serves. */
export interface RepositoryRef {
  key: string;
  rclass: RepositoryClass;
  packageType: string;
  /** remote: the upstream URL */
  url?: string;
}

/** A stored file as the format sees it: path inside the repository and a way to read the bytes. */
export interface StoredFile {
  path: string;
  size: number;
  sha256: string;
  open(): Promise<Readable>;
}

/** Coordinates and metadata a format extracts from one stored file, for the packages index. */
export interface PackageMetadata {
  name: string;
  version: string;
  description?: string;
  licenses?: string[];
  keywords?: string[];
  dependencies?: { name: string; range?: string; scope?: string }[];
  readme?: string;
  /** The file that stands for the version (the tarball, the jar, the wheel…). */
  leadFile: boolean;
}

/** Install snippets for the console's Set Me Up and install commands. */
export interface SnippetInput {
  baseUrl: string;
  repository: RepositoryRef;
  /** Shown in snippets that need credentials; never a real secret. */
  username?: string;
  packageName?: string;
  version?: string;
}

export interface Snippet {
  title: string;
  /** e.g. 'shell', 'ini', 'xml', 'json' */
  language: string;
  code: string;
}

/** What the core hands a format: reach the core only through this, never the database. */
export interface FormatContext {
  /** The running server (routes are registered under /repository/{key}/ by the core). */
  app: FastifyInstance;
}

export interface PackageFormat {
  /** Package type id as stored on repositories: 'generic', 'npm', 'pypi', 'maven', 'docker', … */
  readonly id: string;
  /** Other spellings accepted for the id (spec 001 §9 aliases: golang→go, gav→maven, …). */
  readonly aliases: readonly string[];
  readonly displayName: string;
  /** Icon name the console maps to an image. */
  readonly icon: string;
  /** Repository classes this format supports. */
  readonly classes: readonly RepositoryClass[];
  /** From a stored file, the package coordinates and metadata, or null when the file is not a package. */
  extractMetadata(file: StoredFile): Promise<PackageMetadata | null>;
  /** Set Me Up snippets for a repository of this format. */
  snippets(input: SnippetInput): Snippet[];
  /** The install command for one package (spec 001 §3 install commands). */
  installCommand(input: SnippetInput): string | null;
  /** remote: the upstream URL for a path in the repository. */
  upstreamUrl?(remoteUrl: string, path: string): string;
}

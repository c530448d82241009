import { CHUNK_LOAD_TIMEOUT_MS } from '@granary/contracts';
import { type ComponentType, lazy } from 'react';

/** spec 000 §8: a script chunk that times out or fails to load. */
export class ChunkLoadError extends Error {
  override name = 'ChunkLoadError';
  readonly code: 'CHUNK_LOAD_FAILED' | 'CSS_CHUNK_LOAD_FAILED';
  /** The screen that failed, when a container loads several (spec 000 §2 multi-mfe container). */
  microfrontend?: string;
  constructor(code: 'CHUNK_LOAD_FAILED' | 'CSS_CHUNK_LOAD_FAILED', options?: { cause?: unknown }) {
    super('Loading chunk failed', options);
    this.code = code;
  }
}

/** The messages a browser or Vite's preloader give when a dynamically imported module or its CSS fails. */
const SCRIPT_FAILURE =
  /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Loading chunk/i;
const CSS_FAILURE = /Unable to preload CSS/i;

/** Classifies a load failure: a stylesheet (CSS_CHUNK_LOAD_FAILED), a script (ChunkLoadError), or neither. */
export function asChunkLoadError(error: unknown): ChunkLoadError | null {
  if (error instanceof ChunkLoadError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (CSS_FAILURE.test(message)) return new ChunkLoadError('CSS_CHUNK_LOAD_FAILED', { cause: error });
  if (SCRIPT_FAILURE.test(message)) return new ChunkLoadError('CHUNK_LOAD_FAILED', { cause: error });
  return null;
}

/** spec 000 §7 Loader, §9: a chunk is given 120 seconds, then fails with ChunkLoadError. */
export function loadChunk<T>(importer: () => Promise<T>, timeoutMs = CHUNK_LOAD_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ChunkLoadError('CHUNK_LOAD_FAILED')), timeoutMs);
  });
  return Promise.race([importer(), timeout])
    .catch((error: unknown) => {
      throw asChunkLoadError(error) ?? error;
    })
    .finally(() => clearTimeout(timer));
}

/** A screen group's page, loaded on demand with the chunk rules above. */
export function lazyPage<M, K extends keyof M>(importer: () => Promise<M>, name: K) {
  return lazy(() =>
    loadChunk(importer).then((module) => ({
      // biome-ignore lint/suspicious/noExplicitAny: any props, as the page component declares them.
      default: module[name] as unknown as Extract<M[K], ComponentType<any>>,
    })),
  );
}

/**
 * Loads one named screen (micro-frontend) with the chunk rules above; any failure becomes a ChunkLoadError
 * naming it, so the error boundary says which screen failed.
 */
export async function loadMicrofrontend<T>(name: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await loadChunk(importer);
  } catch (error) {
    const chunk = asChunkLoadError(error) ?? new ChunkLoadError('CHUNK_LOAD_FAILED', { cause: error });
    chunk.microfrontend = name;
    throw chunk;
  }
}

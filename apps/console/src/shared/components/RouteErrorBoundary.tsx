import { Alert, Button } from 'antd';
import { isRouteErrorResponse, useMatches, useRouteError } from 'react-router';
import { asChunkLoadError } from './microfrontend.ts';

/** issue 22: the sentence a person understands, above spec 000 §8's technical texts (kept word for word). */
export const CHUNK_EXPLANATION =
  'This part of the console could not be downloaded: the network may have dropped, or Granary was updated since the page opened. Retry loads it again; the rest of the console still works.';
export const RENDER_EXPLANATION =
  'Something on this page failed. Retry loads it again; if it keeps failing, tell your administrator what is shown below.';

function describe(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error && error.message !== '') return error.message;
  return 'Something went wrong';
}

/** The screen group (spec 000 §1 micro-frontend) a route belongs to: the nearest `handle.microfrontend`. */
export function useMicrofrontendName(): string | null {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]?.handle as { microfrontend?: string } | undefined;
    if (handle?.microfrontend) return handle.microfrontend;
  }
  return null;
}

/**
 * Each screen group renders behind one of these, so a group that fails (to load or to render) fails alone.
 * A group whose code cannot be fetched shows spec 000 §8's "Error: failed resolving microfrontend" /
 * "Microfrontend @… fetching failed!" with the ChunkLoadError or CSS_CHUNK_LOAD_FAILED code. Part of the login
 * route, so it renders antd's Alert rather than ErrorAlert (see there).
 */
export function RouteErrorBoundary() {
  const error = useRouteError();
  const group = useMicrofrontendName();
  const chunk = asChunkLoadError(error);
  return (
    <Alert
      type="error"
      showIcon
      title={chunk ? 'Error: failed resolving microfrontend' : 'This page could not be shown'}
      description={
        chunk ? (
          <>
            <p style={{ margin: '0 0 8px' }}>{CHUNK_EXPLANATION}</p>
            <p
              style={{ margin: 0 }}
            >{`Microfrontend ${chunk.microfrontend ?? group ?? '@granary/console'} fetching failed!`}</p>
            <p style={{ margin: 0 }}>
              {chunk.code === 'CSS_CHUNK_LOAD_FAILED'
                ? 'CSS_CHUNK_LOAD_FAILED'
                : `${chunk.name}: ${chunk.message}`}
            </p>
          </>
        ) : (
          <>
            <p style={{ margin: '0 0 8px' }}>{RENDER_EXPLANATION}</p>
            <p style={{ margin: 0 }}>{describe(error)}</p>
          </>
        )
      }
      action={
        // issue 22: a reload fetches the screen's files again (a failed lazy import is never retried in place).
        <Button size="small" type="primary" onClick={() => window.location.reload()}>
          Retry
        </Button>
      }
    />
  );
}

import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';

export const apiUrl = (path: string) => `http://localhost/ui/api/v1/${path}`;
export const restUrl = (path: string) => `http://localhost/api/${path}`;

/** The answer of `GET ui/auth/current` for a visitor nobody signed in as (the default of every test). */
export const anonymousCurrentUser = http.get(apiUrl('ui/auth/current'), () =>
  HttpResponse.json({ errors: [{ status: 401, code: 'UNAUTHORIZED', message: 'Sign in' }] }, { status: 401 }),
);

/** The MSW server the console tests answer requests with; each test adds the handlers it needs. */
export const server = setupServer(anonymousCurrentUser);

import { setupServer } from 'msw/node';

/** The MSW server the console tests answer requests with; each test adds the handlers it needs. */
export const server = setupServer();

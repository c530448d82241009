export * from './self-signed-cert.ts';
export * from './test-app.ts';

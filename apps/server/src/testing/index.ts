export * from './test-app.ts';

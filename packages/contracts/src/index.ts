export * from './access.ts';
export * from './constants.ts';
export * from './errors.ts';
export * from './packages.ts';
export * from './repositories.ts';
export * from './system.ts';
export * from './webhooks.ts';

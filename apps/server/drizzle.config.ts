import { defineConfig } from 'drizzle-kit';

// `npm run db:generate -w @granary/server` writes a new versioned migration from the schema.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/platform/db/schema.ts',
  out: './src/platform/db/migrations',
});

-- Package name search anywhere in the name (issue 22): trigrams. pg_trgm is a trusted extension (PostgreSQL 13+:
-- a database owner may create it) and PGlite loads it as its pg_trgm contrib extension (platform/db/database.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "packages_name_trgm_idx" ON "packages" USING gin (lower("name") gin_trgm_ops);
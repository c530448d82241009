CREATE TABLE "archive_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"repository_id" uuid NOT NULL,
	"path" text NOT NULL,
	"entry" text NOT NULL,
	"name" text NOT NULL
);
--> statement-breakpoint
DROP INDEX "packages_name_idx";--> statement-breakpoint
ALTER TABLE "package_versions" ADD COLUMN "release" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "package_versions" ADD COLUMN "vulnerabilities" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "package_versions" ADD COLUMN "cves" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "package_versions" ADD COLUMN "risk_level" text;--> statement-breakpoint
ALTER TABLE "packages" ADD COLUMN "versions_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "packages" ADD COLUMN "tags" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "packages" ADD COLUMN "licenses" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "packages" ADD COLUMN "downloads" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "packages" ADD COLUMN "vulnerabilities" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "packages" ADD COLUMN "risk_level" text;--> statement-breakpoint
ALTER TABLE "archive_entries" ADD CONSTRAINT "archive_entries_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "archive_entries_repo_path_idx" ON "archive_entries" USING btree ("repository_id","path");--> statement-breakpoint
CREATE INDEX "archive_entries_name_idx" ON "archive_entries" USING btree (lower("name") collate "C");--> statement-breakpoint
CREATE INDEX "package_versions_sha256_idx" ON "package_versions" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "packages_name_sort_idx" ON "packages" USING btree (lower("name") collate "C","name" collate "C","package_type" collate "C");--> statement-breakpoint
CREATE INDEX "packages_modified_idx" ON "packages" USING btree ("modified_at");--> statement-breakpoint
UPDATE "packages" p SET "versions_count" = (SELECT count(*) FROM "package_versions" v WHERE v."package_id" = p."id");--> statement-breakpoint
UPDATE "package_versions" SET "release" = true WHERE "version" ~ '^v?[0-9]+\.[0-9]+\.[0-9]+(\+.*)?$';

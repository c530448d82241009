CREATE TABLE "archived_artifacts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"repository_id" uuid NOT NULL,
	"repo_key" text NOT NULL,
	"path" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"sha1" text NOT NULL,
	"md5" text NOT NULL,
	"mime_type" text,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"created_by" text NOT NULL,
	"archived_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_by" text NOT NULL,
	"policy" text
);
--> statement-breakpoint
CREATE TABLE "artifact_download_stats" (
	"repository_id" uuid NOT NULL,
	"path" text NOT NULL,
	"download_count" bigint DEFAULT 0 NOT NULL,
	"last_downloaded" timestamp with time zone NOT NULL,
	"last_downloaded_by" text,
	CONSTRAINT "artifact_download_stats_repository_id_path_pk" PRIMARY KEY("repository_id","path")
);
--> statement-breakpoint
CREATE TABLE "retention_policies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"repositories" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"project_key" text,
	"rules" jsonb NOT NULL,
	"action" text DEFAULT 'delete' NOT NULL,
	"interval_hours" integer,
	"next_run_at" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_result" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "archived_artifacts" ADD CONSTRAINT "archived_artifacts_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "artifact_download_stats" ADD CONSTRAINT "artifact_download_stats_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "archived_artifacts_repo_path_idx" ON "archived_artifacts" USING btree ("repository_id","path");--> statement-breakpoint
CREATE INDEX "archived_artifacts_sha256_idx" ON "archived_artifacts" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "archived_artifacts_archived_at_idx" ON "archived_artifacts" USING btree ("archived_at");--> statement-breakpoint
CREATE UNIQUE INDEX "retention_policies_name_idx" ON "retention_policies" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "retention_policies_next_run_idx" ON "retention_policies" USING btree ("next_run_at");
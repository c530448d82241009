CREATE TABLE "trash_items" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"repository_id" uuid NOT NULL,
	"path" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"sha1" text NOT NULL,
	"md5" text NOT NULL,
	"mime_type" text,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"created_by" text NOT NULL,
	"modified_at" timestamp with time zone NOT NULL,
	"modified_by" text NOT NULL,
	"deleted_at" timestamp with time zone NOT NULL,
	"deleted_by" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "blob_gc_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"node" text NOT NULL,
	"trigger" text NOT NULL,
	"dry_run" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"candidates" integer DEFAULT 0 NOT NULL,
	"candidate_bytes" bigint DEFAULT 0 NOT NULL,
	"blobs_removed" integer DEFAULT 0 NOT NULL,
	"bytes_removed" bigint DEFAULT 0 NOT NULL,
	"holds_expired" integer DEFAULT 0 NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "blob_holds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sha256" text NOT NULL,
	"size" bigint DEFAULT 0 NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "blobs" (
	"sha256" text PRIMARY KEY NOT NULL,
	"size" bigint DEFAULT 0 NOT NULL,
	"ref_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"zero_since" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "trash_items" ADD CONSTRAINT "trash_items_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "trash_items_repo_path_idx" ON "trash_items" USING btree ("repository_id","path");--> statement-breakpoint
CREATE INDEX "trash_items_path_prefix_idx" ON "trash_items" USING btree ("repository_id","path" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "trash_items_expires_idx" ON "trash_items" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "trash_items_sha256_idx" ON "trash_items" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "trash_items_name_idx" ON "trash_items" USING btree (lower(regexp_replace("path", '^.*/', '')));--> statement-breakpoint
CREATE INDEX "blob_gc_runs_started_idx" ON "blob_gc_runs" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "blob_holds_expires_idx" ON "blob_holds" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "blob_holds_sha256_idx" ON "blob_holds" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "blobs_zero_since_idx" ON "blobs" USING btree ("zero_since");
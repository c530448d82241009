CREATE TABLE "repository_quotas" (
	"repository_id" uuid PRIMARY KEY NOT NULL,
	"quota_bytes" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "storage_usage_snapshots" (
	"day" date NOT NULL,
	"repo_key" text NOT NULL,
	"package_type" text NOT NULL,
	"project_key" text,
	"files_count" bigint NOT NULL,
	"used_bytes" bigint NOT NULL,
	"taken_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "storage_usage_snapshots_day_repo_key_pk" PRIMARY KEY("day","repo_key")
);
--> statement-breakpoint
ALTER TABLE "repository_quotas" ADD CONSTRAINT "repository_quotas_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "storage_usage_snapshots_day_idx" ON "storage_usage_snapshots" USING btree ("day");
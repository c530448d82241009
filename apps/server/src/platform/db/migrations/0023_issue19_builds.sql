CREATE TABLE "build_run_items" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"role" text NOT NULL,
	"module_id" text NOT NULL,
	"name" text NOT NULL,
	"type" text,
	"path" text,
	"sha256" text,
	"sha1" text,
	"md5" text,
	"scopes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"requested_by" jsonb DEFAULT '[]'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "build_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"number" text NOT NULL,
	"started" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"document_path" text NOT NULL,
	"agent" text,
	"url" text,
	"duration_millis" bigint,
	"status" text,
	"statuses" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"modules" integer DEFAULT 0 NOT NULL,
	"artifacts" integer DEFAULT 0 NOT NULL,
	"dependencies" integer DEFAULT 0 NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "build_run_items" ADD CONSTRAINT "build_run_items_run_id_build_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."build_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "build_run_items_run_idx" ON "build_run_items" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "build_run_items_sha256_idx" ON "build_run_items" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "build_run_items_sha1_idx" ON "build_run_items" USING btree ("sha1");--> statement-breakpoint
CREATE INDEX "build_run_items_md5_idx" ON "build_run_items" USING btree ("md5");--> statement-breakpoint
CREATE UNIQUE INDEX "build_runs_name_number_started_idx" ON "build_runs" USING btree ("name","number","started");--> statement-breakpoint
CREATE INDEX "build_runs_name_started_idx" ON "build_runs" USING btree ("name","started_at");
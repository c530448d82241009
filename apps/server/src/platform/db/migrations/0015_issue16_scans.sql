CREATE TABLE "scan_artifacts" (
	"repository_id" uuid NOT NULL,
	"path" text NOT NULL,
	"sha256" text NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"scanned_at" timestamp with time zone,
	CONSTRAINT "scan_artifacts_repository_id_path_pk" PRIMARY KEY("repository_id","path")
);
--> statement-breakpoint
CREATE TABLE "scan_contents" (
	"sha256" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"artifact" jsonb,
	"findings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"component_count" integer DEFAULT 0 NOT NULL,
	"generation" integer DEFAULT 0 NOT NULL,
	"extracted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"matched_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scan_custom_licenses" (
	"name" text PRIMARY KEY NOT NULL,
	"full_name" text,
	"url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scan_not_indexed" (
	"repository_id" uuid PRIMARY KEY NOT NULL,
	"since" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scan_sboms" (
	"sha256" text NOT NULL,
	"generation" integer NOT NULL,
	"format" text NOT NULL,
	"document" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scan_sboms_sha256_generation_format_pk" PRIMARY KEY("sha256","generation","format")
);
--> statement-breakpoint
ALTER TABLE "scan_artifacts" ADD CONSTRAINT "scan_artifacts_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scan_not_indexed" ADD CONSTRAINT "scan_not_indexed_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scan_artifacts_sha256_idx" ON "scan_artifacts" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "scan_artifacts_status_idx" ON "scan_artifacts" USING btree ("status");--> statement-breakpoint
CREATE INDEX "scan_contents_generation_idx" ON "scan_contents" USING btree ("generation");--> statement-breakpoint
CREATE UNIQUE INDEX "scan_custom_licenses_lower_idx" ON "scan_custom_licenses" USING btree (lower("name"));
CREATE TABLE "scan_ignore_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"notes" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"filters" jsonb NOT NULL,
	"author" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scan_policies" (
	"name" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"body" jsonb NOT NULL,
	"author" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scan_violations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"repository_id" uuid NOT NULL,
	"repo_key" text NOT NULL,
	"package_type" text NOT NULL,
	"path" text NOT NULL,
	"scope" text NOT NULL,
	"sha256" text NOT NULL,
	"watch" text NOT NULL,
	"policy" text NOT NULL,
	"rule" text NOT NULL,
	"type" text NOT NULL,
	"severity" text NOT NULL,
	"issue_id" text NOT NULL,
	"cves" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"summary" text DEFAULT '' NOT NULL,
	"component_purl" text NOT NULL,
	"component_name" text NOT NULL,
	"component_version" text NOT NULL,
	"blocking" boolean DEFAULT false NOT NULL,
	"fail_build" boolean DEFAULT false NOT NULL,
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scan_watches" (
	"name" text PRIMARY KEY NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"body" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scan_violations" ADD CONSTRAINT "scan_violations_repository_id_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scan_ignore_rules_expires_idx" ON "scan_ignore_rules" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "scan_policies_name_lower_idx" ON "scan_policies" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "scan_violations_artifact_idx" ON "scan_violations" USING btree ("repository_id","path");--> statement-breakpoint
CREATE INDEX "scan_violations_scope_idx" ON "scan_violations" USING btree ("repository_id","scope");--> statement-breakpoint
CREATE INDEX "scan_violations_issue_idx" ON "scan_violations" USING btree ("issue_id");--> statement-breakpoint
CREATE UNIQUE INDEX "scan_watches_name_lower_idx" ON "scan_watches" USING btree (lower("name"));
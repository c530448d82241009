CREATE TABLE "scanning_advisories" (
	"id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"modified" timestamp with time zone NOT NULL,
	"published" timestamp with time zone,
	"withdrawn" timestamp with time zone,
	"summary" text DEFAULT '' NOT NULL,
	"aliases" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"severity" text NOT NULL,
	"cvss_score" real,
	"cvss_vector" text,
	"ecosystems" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"record" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scanning_advisory_imports" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"source" text NOT NULL,
	"by" text,
	"imported" integer NOT NULL,
	"updated" integer NOT NULL,
	"unchanged" integer NOT NULL,
	"skipped" integer NOT NULL,
	"ecosystems" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scanning_advisory_packages" (
	"ecosystem" text NOT NULL,
	"name" text NOT NULL,
	"advisory_id" text NOT NULL,
	CONSTRAINT "scanning_advisory_packages_ecosystem_name_advisory_id_pk" PRIMARY KEY("ecosystem","name","advisory_id")
);
--> statement-breakpoint
CREATE TABLE "scanning_advisory_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"generation" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scanning_advisory_packages" ADD CONSTRAINT "scanning_advisory_packages_advisory_id_scanning_advisories_id_fk" FOREIGN KEY ("advisory_id") REFERENCES "public"."scanning_advisories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scanning_advisories_source_idx" ON "scanning_advisories" USING btree ("source");--> statement-breakpoint
CREATE INDEX "scanning_advisory_packages_advisory_idx" ON "scanning_advisory_packages" USING btree ("advisory_id");
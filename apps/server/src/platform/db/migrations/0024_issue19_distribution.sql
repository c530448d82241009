CREATE TABLE "distribution_target_statuses" (
	"distribution_id" uuid NOT NULL,
	"target" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"remote_id" text,
	"files_done" integer DEFAULT 0 NOT NULL,
	"files_total" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"announced" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "distribution_target_statuses_distribution_id_target_pk" PRIMARY KEY("distribution_id","target")
);
--> statement-breakpoint
CREATE TABLE "distribution_targets" (
	"name" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"token_sealed" text NOT NULL,
	"token_last4" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "distributions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"bundle_id" uuid NOT NULL,
	"pull_token_sha256" text NOT NULL,
	"pull_token_sealed" text NOT NULL,
	"pull_base" text NOT NULL,
	"distributed_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "received_bundles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"version" text NOT NULL,
	"manifest" text NOT NULL,
	"manifest_sha256" text NOT NULL,
	"signature" text NOT NULL,
	"key_id" text NOT NULL,
	"pull_base" text NOT NULL,
	"pull_token_sealed" text NOT NULL,
	"source_id" text,
	"status" text NOT NULL,
	"reason" text,
	"files_done" integer DEFAULT 0 NOT NULL,
	"files_total" integer NOT NULL,
	"pulled" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"received_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "release_bundle_files" (
	"bundle_id" uuid NOT NULL,
	"repo_key" text NOT NULL,
	"path" text NOT NULL,
	"sha256" text NOT NULL,
	"sha1" text NOT NULL,
	"md5" text NOT NULL,
	"size" bigint NOT NULL,
	CONSTRAINT "release_bundle_files_bundle_id_repo_key_path_pk" PRIMARY KEY("bundle_id","repo_key","path")
);
--> statement-breakpoint
CREATE TABLE "release_bundle_promotions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"bundle_id" uuid NOT NULL,
	"environment" text NOT NULL,
	"status" text NOT NULL,
	"operation" text NOT NULL,
	"repositories" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"messages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "release_bundles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"version" text NOT NULL,
	"status" text DEFAULT 'COMPLETED' NOT NULL,
	"origin" text DEFAULT 'local' NOT NULL,
	"source_type" text NOT NULL,
	"manifest" text NOT NULL,
	"manifest_sha256" text NOT NULL,
	"signature" text NOT NULL,
	"key_name" text,
	"key_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"file_count" integer NOT NULL,
	"total_size" bigint NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "release_environments" (
	"name" text PRIMARY KEY NOT NULL,
	"rank" integer NOT NULL,
	"repositories" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"name" text PRIMARY KEY NOT NULL,
	"alias" text NOT NULL,
	"key_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"algorithm" text NOT NULL,
	"user_id" text NOT NULL,
	"public_key" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trusted_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"alias" text NOT NULL,
	"fingerprint" text NOT NULL,
	"public_key" text NOT NULL,
	"issued_by" text NOT NULL,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trusted_keys_alias_unique" UNIQUE("alias")
);
--> statement-breakpoint
ALTER TABLE "distribution_target_statuses" ADD CONSTRAINT "distribution_target_statuses_distribution_id_distributions_id_fk" FOREIGN KEY ("distribution_id") REFERENCES "public"."distributions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "distributions" ADD CONSTRAINT "distributions_bundle_id_release_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."release_bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "release_bundle_files" ADD CONSTRAINT "release_bundle_files_bundle_id_release_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."release_bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "release_bundle_promotions" ADD CONSTRAINT "release_bundle_promotions_bundle_id_release_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."release_bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dts_status_idx" ON "distribution_target_statuses" USING btree ("status");--> statement-breakpoint
CREATE INDEX "received_bundles_name_version_idx" ON "received_bundles" USING btree ("name","version");--> statement-breakpoint
CREATE INDEX "release_bundle_files_sha256_idx" ON "release_bundle_files" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "release_bundle_promotions_bundle_idx" ON "release_bundle_promotions" USING btree ("bundle_id");--> statement-breakpoint
CREATE UNIQUE INDEX "release_bundles_name_version_idx" ON "release_bundles" USING btree ("name","version");
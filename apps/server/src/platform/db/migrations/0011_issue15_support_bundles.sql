CREATE TABLE "support_bundles" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"parameters" jsonb NOT NULL,
	"status" text NOT NULL,
	"node_id" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"size" bigint,
	"error" text
);
--> statement-breakpoint
CREATE INDEX "support_bundles_status_node_idx" ON "support_bundles" USING btree ("status","node_id");
ALTER TABLE "system_nodes" ADD COLUMN "host_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "system_nodes" ADD COLUMN "services" jsonb DEFAULT '[]'::jsonb NOT NULL;
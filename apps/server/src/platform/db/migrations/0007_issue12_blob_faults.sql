CREATE TABLE "blob_faults" (
	"sha256" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"detail" text NOT NULL,
	"artifact" text,
	"source" text NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"occurrences" integer DEFAULT 1 NOT NULL,
	"repaired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "blob_faults_open_idx" ON "blob_faults" USING btree ("repaired_at","last_seen_at");
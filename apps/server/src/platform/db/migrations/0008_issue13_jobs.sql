CREATE TABLE "job_queue" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"queue" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"dedupe_key" text,
	"locked_by" text,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "outbox_subscriptions" (
	"name" text PRIMARY KEY NOT NULL,
	"cursor_xid" "xid8" DEFAULT '0'::xid8 NOT NULL,
	"cursor_id" bigint DEFAULT 0 NOT NULL,
	"start_snapshot" text,
	"locked_by" text,
	"locked_until" timestamp with time zone,
	"retry_at" timestamp with time zone,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"delivered" bigint DEFAULT 0 NOT NULL,
	"last_delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outbox_events" ADD COLUMN "xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
CREATE INDEX "job_queue_due_idx" ON "job_queue" USING btree ("queue","run_at") WHERE status in ('pending', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "job_queue_dedupe_idx" ON "job_queue" USING btree ("queue","dedupe_key") WHERE status = 'pending' and attempts = 0 and dedupe_key is not null;--> statement-breakpoint
CREATE INDEX "job_queue_finished_idx" ON "job_queue" USING btree ("finished_at") WHERE status = 'done';--> statement-breakpoint
CREATE INDEX "outbox_events_position_idx" ON "outbox_events" USING btree ("xid","id");
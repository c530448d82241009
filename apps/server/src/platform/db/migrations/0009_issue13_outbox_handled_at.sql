DROP INDEX "outbox_events_pending_idx";--> statement-breakpoint
ALTER TABLE "outbox_events" DROP COLUMN "handled_at";
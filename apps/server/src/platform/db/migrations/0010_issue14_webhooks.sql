CREATE TABLE "webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"subscription_key" text NOT NULL,
	"attempt" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"request" jsonb NOT NULL,
	"response" jsonb,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_key" text NOT NULL,
	"handler_index" integer DEFAULT 0 NOT NULL,
	"event_id" bigint,
	"domain" text NOT NULL,
	"event_type" text NOT NULL,
	"data" jsonb NOT NULL,
	"event_at" timestamp with time zone NOT NULL,
	"test" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_response_status" integer,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_subscriptions" (
	"key" text PRIMARY KEY NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"domain" text NOT NULL,
	"event_types" jsonb NOT NULL,
	"criteria" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"handlers" jsonb NOT NULL,
	"disabled_reason" text,
	"created_by" text,
	"updated_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_key_webhook_subscriptions_key_fk" FOREIGN KEY ("subscription_key") REFERENCES "public"."webhook_subscriptions"("key") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "webhook_attempts_subscription_idx" ON "webhook_attempts" USING btree ("subscription_key","id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_started_idx" ON "webhook_attempts" USING btree ("started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" USING btree ("event_id","subscription_key","handler_index") WHERE event_id is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_subscription_idx" ON "webhook_deliveries" USING btree ("subscription_key","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_updated_idx" ON "webhook_deliveries" USING btree ("updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_subscriptions_key_lower_idx" ON "webhook_subscriptions" USING btree (lower("key"));
CREATE TABLE "proxies" (
	"key" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"username" text DEFAULT '' NOT NULL,
	"password" text,
	"nt_host" text DEFAULT '' NOT NULL,
	"domain" text DEFAULT '' NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"redirect_to_hosts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reverse_proxy_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "proxies_key_lower_idx" ON "proxies" USING btree (lower("key"));--> statement-breakpoint
CREATE UNIQUE INDEX "proxies_one_default_idx" ON "proxies" USING btree ("is_default") WHERE "proxies"."is_default";
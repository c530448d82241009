CREATE TABLE "git_integration_repositories" (
	"integration_key" text NOT NULL,
	"full_name" text NOT NULL,
	"default_branch" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"scanned_at" timestamp with time zone,
	"error" text,
	"result" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "git_integration_repositories_integration_key_full_name_pk" PRIMARY KEY("integration_key","full_name")
);
--> statement-breakpoint
CREATE TABLE "git_integrations" (
	"key" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"vendor" integer NOT NULL,
	"url" text NOT NULL,
	"user_name" text NOT NULL,
	"token_sealed" text NOT NULL,
	"token_last4" text NOT NULL,
	"products" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "git_integration_repositories" ADD CONSTRAINT "git_integration_repositories_integration_key_git_integrations_key_fk" FOREIGN KEY ("integration_key") REFERENCES "public"."git_integrations"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "git_integrations_vendor_name_idx" ON "git_integrations" USING btree ("vendor","name");
CREATE TABLE "onboarding_personalization" (
	"user_name" text PRIMARY KEY NOT NULL,
	"data" jsonb NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quick_start_sessions" (
	"user_name" text NOT NULL,
	"repo_key" text NOT NULL,
	"download_package_name" text NOT NULL,
	"download_version" text,
	"upload_package_name" text NOT NULL,
	"upload_version" text,
	"is_authenticated" boolean DEFAULT false NOT NULL,
	"is_downloaded" boolean DEFAULT false NOT NULL,
	"is_published" boolean DEFAULT false NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quick_start_sessions_user_name_repo_key_pk" PRIMARY KEY("user_name","repo_key")
);

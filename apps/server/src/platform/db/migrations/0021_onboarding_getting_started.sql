CREATE TABLE "onboarding_getting_started" (
	"user_name" text PRIMARY KEY NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL
);

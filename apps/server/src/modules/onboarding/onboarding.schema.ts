import { boolean, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The onboarding questionnaire a user sent (issue 17, spec 000 §3 onboarding data): the user's custom data,
 * one row per user name.
 */
export const onboardingPersonalization = pgTable('onboarding_personalization', {
  userName: text('user_name').primaryKey(),
  data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Quick-start sessions (spec 000 §3): one per user and repository, in the database so every node sharing it
 * flips the same flags whichever node the client's request reached.
 */
export const quickStartSessions = pgTable(
  'quick_start_sessions',
  {
    userName: text('user_name').notNull(),
    /** The repository key as the wizard named it (lower-cased for matching). */
    repoKey: text('repo_key').notNull(),
    downloadPackageName: text('download_package_name').notNull(),
    downloadVersion: text('download_version'),
    uploadPackageName: text('upload_package_name').notNull(),
    uploadVersion: text('upload_version'),
    isAuthenticated: boolean('is_authenticated').notNull().default(false),
    isDownloaded: boolean('is_downloaded').notNull().default(false),
    isPublished: boolean('is_published').notNull().default(false),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userName, t.repoKey] })],
);

/**
 * Who was already shown the getting-started wizard on start-up (spec 000 §4: administrators on the free tier see
 * it once; the cloud-trial quick-start wizard initialises on its own once). In the database, so "once" holds
 * across browsers and every node sharing it; the first claim wins.
 */
export const onboardingGettingStarted = pgTable('onboarding_getting_started', {
  userName: text('user_name').primaryKey(),
  seenAt: timestamp('seen_at', { withTimezone: true }).notNull().defaultNow(),
});

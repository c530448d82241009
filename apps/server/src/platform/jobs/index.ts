export {
  DEFAULT_RETENTION,
  PRUNE_JOB_NAME,
  pruneJobsAndEvents,
  type Retention,
  registerHousekeeping,
} from './housekeeping.ts';
export {
  JobBusyError,
  type JobRunContext,
  type JobScope,
  type JobStatus,
  Jobs,
  type JobsOptions,
  type RecurringJob,
  UnknownJobError,
} from './jobs.ts';
export {
  type DeadJob,
  type EnqueueOptions,
  enqueueJob,
  enqueueJobs,
  JOBS_CHANNEL,
  type QueuedJob,
  type QueuedJobContext,
  type QueueStatus,
  RetryLaterError,
} from './queue.ts';
export type { Subscriber, SubscriberContext, SubscriberStatus } from './subscribers.ts';

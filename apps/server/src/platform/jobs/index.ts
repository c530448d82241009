export {
  JobBusyError,
  type JobRunContext,
  type JobScope,
  type JobStatus,
  Jobs,
  type RecurringJob,
  UnknownJobError,
} from './jobs.ts';

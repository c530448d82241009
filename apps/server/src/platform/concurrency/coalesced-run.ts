/**
 * Runs one async task at a time and coalesces calls: a call while it runs returns the run in
 * progress and asks for exactly one more run after it (when `again()` still allows), so a burst of
 * wake-ups costs at most two runs. Errors go to `onError`; the returned promise never rejects.
 */
export class CoalescedRun {
  private current: Promise<void> | undefined;
  private rerun = false;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
    private readonly again: () => boolean = () => true,
  ) {}

  run(): Promise<void> {
    if (this.current) {
      this.rerun = true;
      return this.current;
    }
    this.current = this.task()
      .catch(this.onError)
      .finally(() => {
        this.current = undefined;
        if (this.rerun && this.again()) {
          this.rerun = false;
          void this.run();
        }
      });
    return this.current;
  }

  /** The run in progress, if any (for a shutdown to wait on). */
  get inProgress(): Promise<void> | undefined {
    return this.current;
  }
}

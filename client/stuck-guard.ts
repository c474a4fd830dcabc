// Counts consecutive input_required polls that bring no new request key: a server that keeps
// asking the same thing after it was answered is stuck, and polling it forever helps no one.

export class StuckPollError extends Error {
  constructor(
    readonly taskId: string,
    readonly polls: number,
  ) {
    super(
      `task ${taskId} asked for input ${polls} times in a row without a new request after its requests ` +
        'were answered; cancelled it and gave up',
    );
    this.name = 'StuckPollError';
  }
}

export class StuckPollGuard {
  private readonly seen = new Set<string>();
  private stale = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new Error('the stuck-poll limit must be a positive integer');
  }

  /** Records one input_required poll; returns the keys not seen before. */
  observe(keys: string[]): string[] {
    const fresh = keys.filter((key) => !this.seen.has(key));
    for (const key of fresh) this.seen.add(key);
    this.stale = fresh.length === 0 ? this.stale + 1 : 0;
    return fresh;
  }

  /** Any other status resets the count. */
  reset(): void {
    this.stale = 0;
  }

  get stuck(): boolean {
    return this.stale >= this.limit;
  }
}

// Server starts and stops, one at a time. Granting workspace trust fires the trust event and a
// settings event together; run at once, two restarts interleave their stops and starts and leave
// a server started from stale settings. Here a request made while a run is under way waits for
// it, and requests that wait together are merged into one run, which reads the settings when it
// begins: the last settings win. Pure: no `vscode` import, so it is unit-tested in plain Node.

interface Pending {
  restart: boolean;
  done: Promise<void>;
}

export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();
  private pending: Pending | undefined;

  /** `run(restart)`: restart true demands a new server; false applies the settings, restarting only if they need it. */
  constructor(private readonly run: (restart: boolean) => Promise<void>) {}

  /** Resolves once a run that began after this request has finished; rejects with that run's error. */
  request(restart = false): Promise<void> {
    if (this.pending) {
      this.pending.restart ||= restart;
      return this.pending.done;
    }
    const entry: Pending = { restart, done: Promise.resolve() };
    entry.done = this.tail.then(() => {
      // from here on a new request waits for this run instead of joining it
      this.pending = undefined;
      return this.run(entry.restart);
    });
    this.pending = entry;
    this.tail = entry.done.catch(() => undefined); // a failed run does not block the next
    return entry.done;
  }

  /** Resolves once every run requested so far has finished, without requesting one. */
  idle(): Promise<void> {
    return this.tail;
  }
}

/**
 * What the service knows about the dependencies it cannot answer without: the database
 * (reachable, schema up to date) and Redis when configured. Feeds `/ready` and the logs:
 * one line when a dependency goes away, one when it is back, never one per request.
 */
export interface HealthLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

const PROBE_INTERVAL_MS = 1000;

/** One dependency's state. While down, `probe` (when given) is tried every second. */
export class DependencyState {
  private downSince: number | null = null;
  /** Counts outages; an operation remembers the count it started in (see `markUp`). */
  outages = 0;
  /** Why it went down, for a logger attached after the fact. */
  reason = '';
  private probeTimer?: NodeJS.Timeout;
  private probing = false;

  constructor(
    readonly name: 'database' | 'redis',
    private readonly health: Health,
    private readonly probe?: () => Promise<unknown>,
  ) {}

  get up(): boolean {
    return this.downSince === null;
  }

  /** Notes an outage; logged only on the change from up to down. */
  markDown(reason: unknown): void {
    if (this.downSince !== null) return;
    this.downSince = Date.now();
    this.outages += 1;
    this.reason = reason instanceof Error ? reason.message : String(reason);
    this.health.log?.warn({ dependency: this.name, reason: this.reason }, `${this.name} unavailable`);
    if (this.probe && !this.probeTimer) {
      this.probeTimer = setInterval(() => void this.tryProbe(), PROBE_INTERVAL_MS);
      this.probeTimer.unref();
    }
  }

  /**
   * Notes that the dependency answered; logged only on the change from down to up. An
   * operation that began before the current outage (`startedIn` < `outages`) proves nothing:
   * a statement still finishing while the server shuts down must not end the outage it is in.
   */
  markUp(startedIn?: number): void {
    if (this.downSince === null) return;
    if (startedIn !== undefined && startedIn < this.outages) return;
    const downMs = Date.now() - this.downSince;
    this.downSince = null;
    clearInterval(this.probeTimer);
    this.probeTimer = undefined;
    this.health.log?.info({ dependency: this.name, down_ms: downMs }, `${this.name} available again`);
  }

  private async tryProbe(): Promise<void> {
    if (this.probing || !this.probe) return;
    this.probing = true;
    const startedIn = this.outages;
    try {
      await this.probe();
      this.markUp(startedIn);
    } catch {
      // still down; the next probe follows
    } finally {
      this.probing = false;
    }
  }

  stop(): void {
    clearInterval(this.probeTimer);
    this.probeTimer = undefined;
  }
}

export class Health {
  log?: HealthLog;
  readonly database: DependencyState;
  redis?: DependencyState;
  /** False from start-up until the migrations ran (the database may not be there yet). */
  schemaReady = true;

  constructor(probeDatabase?: () => Promise<unknown>) {
    this.database = new DependencyState('database', this, probeDatabase);
  }

  /** Logs state changes from now on (and the outages that began before). */
  attachLog(log: HealthLog): void {
    if (this.log) return;
    this.log = log;
    for (const dependency of [this.database, this.redis]) {
      if (dependency && !dependency.up) {
        log.warn(
          { dependency: dependency.name, reason: dependency.reason },
          `${dependency.name} unavailable`,
        );
      }
    }
  }

  /** Adds Redis as a dependency (only when REDIS_URL is set). */
  trackRedis(): DependencyState {
    this.redis ??= new DependencyState('redis', this);
    return this.redis;
  }

  /** What is missing for the service to answer normally: `database`, `schema`, `redis`. */
  missing(): string[] {
    const missing: string[] = [];
    if (!this.database.up) missing.push('database');
    else if (!this.schemaReady) missing.push('schema');
    if (this.redis && !this.redis.up) missing.push('redis');
    return missing;
  }

  stop(): void {
    this.database.stop();
    this.redis?.stop();
  }
}

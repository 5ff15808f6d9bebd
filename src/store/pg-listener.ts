import pg from 'pg';

/**
 * One PostgreSQL session that LISTENs on gdflow's channels for this process and hands each notification to the
 * handler of its channel. Notifications are only a shortcut: whoever relies on one also polls, so a broken
 * listening connection is opened again (at most every few seconds, by `reconnectIfNeeded`) without anything being
 * lost meanwhile but time.
 */
export class PgListener {
  private client: pg.Client | undefined;
  private connecting = false;
  private lastAttempt = 0;
  private stopped = false;
  private readonly handlers = new Map<string, (payload: string) => void>();

  constructor(private readonly url: string) {}

  /** Hand the notifications of `channel` to `handler` (channel names are gdflow's own constants). */
  on(channel: string, handler: (payload: string) => void): void {
    this.handlers.set(channel, handler);
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  async connect(): Promise<void> {
    if (this.connecting || this.stopped) return;
    this.connecting = true;
    this.lastAttempt = Date.now();
    const client = new pg.Client({ connectionString: this.url, application_name: 'gdflow-listen' });
    const drop = (): void => {
      if (this.client === client) this.client = undefined;
    };
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', (message) => this.handlers.get(message.channel)?.(message.payload ?? ''));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
      if (this.stopped) await client.end();
      else this.client = client;
    } catch {
      await client.end().catch(() => undefined);
    } finally {
      this.connecting = false;
    }
  }

  /** Open the session again if it broke, at most every 5 s. */
  async reconnectIfNeeded(): Promise<void> {
    if (!this.client && Date.now() - this.lastAttempt > 5000) await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

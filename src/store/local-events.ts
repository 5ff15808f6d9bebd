import { EventEmitter } from 'node:events';
import type { WorkEvent, WorkEvents } from './store.js';

/**
 * Wake-ups within this process (the embedded SQLite store has no way to reach other processes: workers there
 * find work by polling). Listeners run on a later turn of the event loop, never inside the publisher's call.
 */
export class LocalWorkEvents implements WorkEvents {
  readonly crossProcess = false;
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  publish(event: WorkEvent): Promise<void> {
    this.deliver(event);
    return Promise.resolve();
  }

  /** Hand an event to this process's listeners (also used by backends that hear events from elsewhere). */
  deliver(event: WorkEvent): void {
    setImmediate(() => this.emitter.emit('event', event));
  }

  subscribe(listener: (event: WorkEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}

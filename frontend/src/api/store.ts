import { toAppError } from "./errors";
import { RESYNC, type AppError, type CairnEvent, type Transport } from "./types";

/** Every snapshot method of the facade returns its topic's seq at the time it was taken. */
export interface Snapshot {
  seq: number;
}

/** Returned by `apply` when an event cannot be applied locally: reload the snapshot. */
export const RELOAD = Symbol("reload");

export interface TopicStoreOptions<S extends Snapshot> {
  topic: string;
  /** Fetches the snapshot of the topic. */
  load: () => Promise<S>;
  /**
   * Folds one newer event into the state. Return the new state, RELOAD, or undefined to
   * keep the state as it is (the store still advances its seq).
   */
  apply: (state: S, ev: CairnEvent) => S | typeof RELOAD | undefined;
}

/** What a component reads. `data` stays visible while a reload runs. */
export interface TopicState<S> {
  data: S | null;
  error: AppError | null;
  loading: boolean;
}

/**
 * Keeps one topic's snapshot current: loads it, applies only events whose seq is higher
 * than what it has, and reloads when the stream reconnects, when the backend says
 * `resync`, or when a gap in seq shows that events were lost. Events that arrive while a
 * snapshot is loading are held and replayed over it, so none is lost in between.
 */
export class TopicStore<S extends Snapshot> {
  readonly topic: string;
  private state: TopicState<S> = { data: null, error: null, loading: false };
  private seq = -1;
  private gen = 0;
  private buffer: CairnEvent[] = [];
  private readonly listeners = new Set<() => void>();
  private stops: Array<() => void> = [];
  private started = false;

  constructor(
    private readonly transport: Transport,
    private readonly opts: TopicStoreOptions<S>,
  ) {
    this.topic = opts.topic;
  }

  /** Subscribes to events and loads the first snapshot; idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stops.push(this.transport.subscribe((ev) => this.onEvent(ev)));
    this.stops.push(this.transport.onReconnect(() => void this.reload()));
    void this.reload();
  }

  /** Stops listening (tests, window teardown). */
  dispose(): void {
    for (const s of this.stops) s();
    this.stops = [];
    this.started = false;
    this.gen++;
  }

  getState = (): TopicState<S> => this.state;

  /** For useSyncExternalStore; the first listener starts the store. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    this.start();
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** The seq of the data shown (or -1 before the first snapshot). */
  get currentSeq(): number {
    return this.seq;
  }

  /** Loads the snapshot again; the newest request wins. */
  reload(): Promise<void> {
    const gen = ++this.gen;
    this.buffer = [];
    this.set({ ...this.state, loading: true });
    return this.opts.load().then(
      (snap) => {
        if (gen !== this.gen) return;
        const held = this.buffer;
        this.buffer = [];
        this.seq = snap.seq;
        this.set({ data: snap, error: null, loading: false });
        held.sort((a, b) => a.seq - b.seq);
        for (const ev of held) {
          if (gen !== this.gen) return; // an event asked for another reload
          this.handle(ev);
        }
      },
      (err: unknown) => {
        if (gen !== this.gen) return;
        this.buffer = [];
        this.set({ ...this.state, error: toAppError(err), loading: false });
      },
    );
  }

  /**
   * Accepts a snapshot a mutation returned (e.g. SetSetting) if it is not older than what
   * the store has; the matching broadcast is then ignored as not newer.
   */
  offer(snap: S): void {
    if (this.state.loading || snap.seq < this.seq) return;
    this.seq = snap.seq;
    this.set({ data: snap, error: null, loading: false });
  }

  private onEvent(ev: CairnEvent): void {
    if (ev.type === RESYNC) {
      // A resync names the topic that lost events, or none for "all of them".
      if (!ev.topic || ev.topic === this.topic || ev.topic === "*") void this.reload();
      return;
    }
    if (ev.topic !== this.topic) return;
    if (this.state.loading || this.state.data === null) {
      if (this.state.loading) this.buffer.push(ev);
      return;
    }
    this.handle(ev);
  }

  private handle(ev: CairnEvent): void {
    const data = this.state.data;
    if (data === null || ev.seq <= this.seq) return;
    if (ev.seq > this.seq + 1) {
      void this.reload(); // events were lost in between
      return;
    }
    this.seq = ev.seq;
    const next = this.opts.apply(data, ev);
    if (next === RELOAD) {
      void this.reload();
      return;
    }
    if (next !== undefined && next !== data) this.set({ data: next, error: null, loading: false });
  }

  private set(next: TopicState<S>): void {
    this.state = next;
    for (const l of [...this.listeners]) l();
  }
}

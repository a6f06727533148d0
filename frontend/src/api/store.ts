import { toAppError } from "./errors";
import { RESYNC, type AppError, type CairnEvent, type Transport } from "./types";

/** Every snapshot method of the facade returns its topic's seq at the time it was taken. */
export interface Snapshot {
  seq: number;
}

/**
 * How long a store that starts while the event stream connects waits for the stream's
 * hello before it loads anyway (a stream that does not come up must not leave it empty).
 */
export const CONNECT_WAIT_MS = 1500;

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
  /**
   * A load runs that the view waits for: the first one, or one after an error. A reload
   * behind data already shown changes nothing here unless it brings something new.
   */
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
  /** A load is in flight: events are held until its snapshot is in. */
  private inFlight = false;
  /** A load for a reason (see load) has not yet brought its snapshot: the data is old. */
  private stale = false;
  private waiting: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly transport: Transport,
    private readonly opts: TopicStoreOptions<S>,
  ) {
    this.topic = opts.topic;
  }

  /**
   * Subscribes to events and loads the first snapshot; idempotent. While the transport's
   * event stream is still connecting (opened by another store), the first load waits for
   * the stream's hello, which reloads every started store anyway: one load instead of two.
   * The store whose subscription opens the stream loads at once (its snapshot may come
   * with the page, api/page.ts) and again at the hello.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    const wait = this.transport.awaitingConnection?.() ?? false;
    this.stops.push(this.transport.subscribe((ev) => this.onEvent(ev)));
    // What a (re)connection reloads is most often what the store already shows.
    this.stops.push(this.transport.onReconnect(() => void this.load(true)));
    if (!wait) {
      void this.reload();
      return;
    }
    this.begin(true);
    this.waiting = setTimeout(() => void this.reload(), CONNECT_WAIT_MS);
  }

  /** Stops listening (tests, window teardown). */
  dispose(): void {
    for (const s of this.stops) s();
    this.stops = [];
    this.started = false;
    this.stopWaiting();
    this.inFlight = false;
    this.gen++;
  }

  /**
   * Starts a load, or the wait for one: it is newer than any before (gen), and events are
   * held until its snapshot is in. showLoading tells listeners the view waits for it.
   */
  private begin(showLoading: boolean): number {
    const gen = ++this.gen;
    this.buffer = [];
    this.inFlight = true;
    if (showLoading) this.set({ ...this.state, loading: true });
    return gen;
  }

  private stopWaiting(): void {
    if (this.waiting !== null) clearTimeout(this.waiting);
    this.waiting = null;
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
    return this.load(false);
  }

  /**
   * Loads the snapshot. `quiet`: the data shown is current as far as the store knows (it is
   * only checking, after a (re)connection), so while data is shown without an error the
   * load is silent, and listeners hear of it only if the snapshot is newer than what they
   * show. A reload for a reason (an event it cannot fold, a gap, a resync) always shows
   * the new snapshot.
   */
  private load(quiet: boolean): Promise<void> {
    this.stopWaiting();
    if (!quiet) this.stale = true;
    const background = quiet && !this.stale && this.state.data !== null && this.state.error === null;
    const gen = this.begin(!background);
    return this.opts.load().then(
      (snap) => {
        if (gen !== this.gen) return;
        this.inFlight = false;
        const held = this.buffer;
        this.buffer = [];
        const same = background && snap.seq === this.seq;
        this.seq = snap.seq;
        this.stale = false;
        // The same seq means the same data (every event up to it is folded in already).
        if (!same) this.set({ data: snap, error: null, loading: false });
        held.sort((a, b) => a.seq - b.seq);
        for (const ev of held) {
          if (gen !== this.gen) return; // an event asked for another reload
          this.handle(ev);
        }
      },
      (err: unknown) => {
        if (gen !== this.gen) return;
        this.inFlight = false;
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
    if (this.inFlight || snap.seq < this.seq) return;
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
    if (this.inFlight || this.state.data === null) {
      if (this.inFlight) this.buffer.push(ev);
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

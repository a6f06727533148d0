import { describe, expect, it, vi } from "vitest";
import { FakeTransport } from "../test/fakeTransport";
import { applySecretsEvent, applySettingsEvent, createClient } from "./client";
import { CONNECT_WAIT_MS, RELOAD, TopicStore } from "./store";
import type { CairnEvent } from "./types";

interface Counter {
  seq: number;
  n: number;
}

/** A deferred promise the test resolves when it wants the snapshot to "arrive". */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const ev = (seq: number, n?: number, type = "inc", topic = "counter"): CairnEvent => ({ topic, seq, type, data: n });

function counterStore(t: FakeTransport, load: () => Promise<Counter>) {
  return new TopicStore<Counter>(t, {
    topic: "counter",
    load,
    apply: (s, e) => (e.type === "inc" ? { ...s, n: s.n + Number(e.data ?? 1) } : e.type === "weird" ? RELOAD : undefined),
  });
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("TopicStore", () => {
  it("applies only events newer than the snapshot's seq", async () => {
    const t = new FakeTransport();
    const store = counterStore(t, async () => ({ seq: 5, n: 100 }));
    store.start();
    await flush();
    expect(store.getState().data).toEqual({ seq: 5, n: 100 });
    t.emit(ev(4, 1)); // older
    t.emit(ev(5, 1)); // equal: already in the snapshot
    t.emit(ev(6, 1));
    t.emit(ev(6, 1)); // duplicate
    t.emit(ev(7, 10));
    t.emit(ev(8, 1000, "inc", "other-topic"));
    expect(store.getState().data?.n).toBe(111);
    expect(store.currentSeq).toBe(7);
  });

  it("holds events that arrive while the snapshot loads and replays the newer ones", async () => {
    const t = new FakeTransport();
    const d = deferred<Counter>();
    const store = counterStore(t, () => d.promise);
    store.start();
    expect(store.getState().loading).toBe(true);
    t.emit(ev(3, 1)); // included in the snapshot below
    t.emit(ev(5, 10)); // out of order on the wire
    t.emit(ev(4, 1));
    d.resolve({ seq: 3, n: 50 });
    await flush();
    expect(store.getState()).toMatchObject({ loading: false, data: { n: 61 } });
    expect(store.currentSeq).toBe(5);
  });

  it("reloads the snapshot on reconnect and on a resync event", async () => {
    const t = new FakeTransport();
    let n = 0;
    const load = vi.fn(async () => ({ seq: 10 * ++n, n }));
    const store = counterStore(t, load);
    store.start();
    await flush();
    expect(load).toHaveBeenCalledTimes(1);
    t.reconnect();
    await flush();
    expect(load).toHaveBeenCalledTimes(2);
    expect(store.getState().data).toEqual({ seq: 20, n: 2 });
    t.emit({ topic: "counter", seq: 0, type: "resync" });
    await flush();
    expect(load).toHaveBeenCalledTimes(3);
    t.emit({ topic: "", seq: 0, type: "resync" }); // resync of every topic
    await flush();
    expect(load).toHaveBeenCalledTimes(4);
    t.emit({ topic: "someone-else", seq: 0, type: "resync" });
    await flush();
    expect(load).toHaveBeenCalledTimes(4);
  });

  it("reloads when a gap in seq shows that events were lost", async () => {
    const t = new FakeTransport();
    const load = vi.fn().mockResolvedValueOnce({ seq: 1, n: 0 }).mockResolvedValueOnce({ seq: 9, n: 42 });
    const store = counterStore(t, load);
    store.start();
    await flush();
    t.emit(ev(2, 1));
    t.emit(ev(9, 1)); // 3..8 missing
    await flush();
    expect(load).toHaveBeenCalledTimes(2);
    expect(store.getState().data).toEqual({ seq: 9, n: 42 });
  });

  it("reloads when an event cannot be applied locally", async () => {
    const t = new FakeTransport();
    const load = vi.fn(async () => ({ seq: 1, n: 0 }));
    const store = counterStore(t, load);
    store.start();
    await flush();
    t.emit(ev(2, 0, "weird"));
    await flush();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("keeps only the newest of overlapping loads", async () => {
    const t = new FakeTransport();
    const first = deferred<Counter>();
    const second = deferred<Counter>();
    const load = vi.fn().mockReturnValueOnce(first.promise).mockReturnValueOnce(second.promise);
    const store = counterStore(t, load);
    store.start();
    t.reconnect();
    second.resolve({ seq: 7, n: 7 });
    await flush();
    first.resolve({ seq: 3, n: 3 }); // stale answer arrives late
    await flush();
    expect(store.getState().data).toEqual({ seq: 7, n: 7 });
  });

  it("keeps the last data and reports the error when a reload fails", async () => {
    const t = new FakeTransport();
    const load = vi
      .fn()
      .mockResolvedValueOnce({ seq: 1, n: 1 })
      .mockRejectedValueOnce({ code: "db_open_failed", i18nKey: "errors.db_open_failed", message: "locked" });
    const store = counterStore(t, load);
    store.start();
    await flush();
    t.reconnect();
    await flush();
    expect(store.getState()).toMatchObject({
      data: { seq: 1, n: 1 },
      loading: false,
      error: { code: "db_open_failed" },
    });
  });

  it("accepts a mutation's snapshot unless it is older, then ignores the matching event", async () => {
    const t = new FakeTransport();
    const store = counterStore(t, async () => ({ seq: 2, n: 0 }));
    store.start();
    await flush();
    store.offer({ seq: 3, n: 5 });
    t.emit(ev(3, 5)); // the broadcast of the same change
    expect(store.getState().data).toEqual({ seq: 3, n: 5 });
    store.offer({ seq: 1, n: 99 }); // older: ignored
    expect(store.getState().data?.n).toBe(5);
  });

  it("notifies subscribers, starts on first subscribe, and stops on dispose", async () => {
    const t = new FakeTransport();
    const store = counterStore(t, async () => ({ seq: 0, n: 0 }));
    const listener = vi.fn();
    store.subscribe(listener);
    expect(t.subscribers).toBe(1);
    await flush();
    t.emit(ev(1));
    expect(listener).toHaveBeenCalled();
    store.dispose();
    expect(t.subscribers).toBe(0);
  });
});

/** A transport whose event stream is still connecting until the test says hello. */
class ConnectingTransport extends FakeTransport {
  connecting = true;
  awaitingConnection(): boolean {
    return this.connecting;
  }
  hello(): void {
    this.connecting = false;
    this.reconnect();
  }
}

describe("TopicStore and the stream's first connection", () => {
  it("loads at once when it opens the stream, and again at its hello", async () => {
    const t = new ConnectingTransport();
    t.connecting = false; // nobody opened the stream yet: this store's subscription does
    const load = vi.fn(async () => ({ seq: 1, n: 1 }));
    const store = counterStore(t, load);
    store.start();
    await flush();
    expect(load).toHaveBeenCalledTimes(1);
    t.hello();
    await flush();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("started while the stream connects, it loads once, at the hello", async () => {
    const t = new ConnectingTransport();
    const load = vi.fn(async () => ({ seq: 4, n: 2 }));
    const store = counterStore(t, load);
    store.start();
    await flush();
    expect(load).not.toHaveBeenCalled();
    expect(store.getState()).toMatchObject({ data: null, loading: true });
    t.hello();
    await flush();
    expect(load).toHaveBeenCalledTimes(1);
    expect(store.getState()).toMatchObject({ data: { seq: 4, n: 2 }, loading: false });
    t.emit(ev(5, 1));
    expect(store.getState().data?.n).toBe(3);
  });

  it("loads anyway when no hello comes in time", async () => {
    vi.useFakeTimers();
    try {
      const t = new ConnectingTransport();
      const load = vi.fn(async () => ({ seq: 1, n: 1 }));
      const store = counterStore(t, load);
      store.start();
      vi.advanceTimersByTime(CONNECT_WAIT_MS - 1);
      expect(load).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(load).toHaveBeenCalledTimes(1);
      await vi.runAllTimersAsync();
      expect(store.getState().data).toEqual({ seq: 1, n: 1 });
      t.hello(); // late: loads again, nothing else
      await vi.runAllTimersAsync();
      expect(load).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a reconnect that finds the seq it shows changes nothing the view sees", async () => {
    const t = new FakeTransport();
    let snap = { seq: 3, n: 1 };
    const store = counterStore(t, async () => snap);
    store.start();
    await flush();
    const shown = store.getState();
    const listener = vi.fn();
    store.subscribe(listener);
    t.reconnect();
    await flush();
    expect(listener).not.toHaveBeenCalled();
    expect(store.getState()).toBe(shown);
    snap = { seq: 4, n: 2 }; // something happened while the stream was down
    t.reconnect();
    await flush();
    expect(listener).toHaveBeenCalled();
    expect(store.getState().data).toEqual({ seq: 4, n: 2 });
  });

  it("a reload for a reason shows the snapshot even at the same seq, also when a reconnect overtakes it", async () => {
    const t = new FakeTransport();
    const load = vi
      .fn()
      .mockResolvedValueOnce({ seq: 1, n: 0 })
      .mockResolvedValueOnce({ seq: 2, n: 50 }) // the RELOAD's load, overtaken…
      .mockResolvedValueOnce({ seq: 2, n: 50 }); // …by the reconnect's
    const store = counterStore(t, load);
    store.start();
    await flush();
    t.emit(ev(2, 0, "weird")); // cannot be folded: seq 2 is shown, the data is not
    t.reconnect();
    await flush();
    expect(load).toHaveBeenCalledTimes(3);
    expect(store.getState().data).toEqual({ seq: 2, n: 50 });
  });
});

describe("settings and secrets stores", () => {
  it("settings:changed replaces the snapshot; secrets:changed on the same topic advances seq only", async () => {
    const t = new FakeTransport({
      GetSettings: () => ({ seq: 1, values: { "general.theme": "light" }, specs: [] }),
    });
    const client = createClient(t);
    client.stores.settings.start();
    await flush();
    t.emit({ topic: "settings", seq: 2, type: "secrets:changed", data: null });
    t.emit({
      topic: "settings",
      seq: 3,
      type: "settings:changed",
      data: { seq: 3, values: { "general.theme": "dark" }, specs: [] },
    });
    expect(client.stores.settings.getState().data?.values["general.theme"]).toBe("dark");
    expect(t.count("GetSettings")).toBe(1);
  });

  it("a secrets:changed without a list reloads ListSecrets", () => {
    const state = { seq: 1, backend: "file" as const, keyringAvailable: false, secrets: [] };
    expect(applySecretsEvent(state, { topic: "settings", seq: 2, type: "secrets:changed" })).toBe(RELOAD);
    expect(applySecretsEvent(state, { topic: "settings", seq: 2, type: "settings:changed" })).toBeUndefined();
    const next = applySecretsEvent(state, {
      topic: "settings",
      seq: 2,
      type: "secrets:changed",
      data: { secrets: [{ name: "a", set: true }] },
    });
    expect(next).toMatchObject({ seq: 2, secrets: [{ name: "a", set: true }] });
    expect(applySettingsEvent({ seq: 1, values: {}, specs: [] }, { topic: "settings", seq: 2, type: "settings:changed" })).toBe(
      RELOAD,
    );
  });
});

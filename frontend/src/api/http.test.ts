import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HttpTransport, tokenFromLocation, type EventSourceLike } from "./http";
import type { CairnEvent } from "./types";

class FakeEventSource implements EventSourceLike {
  static instances: FakeEventSource[] = [];
  readyState = 0;
  closed = false;
  onopen: EventSourceLike["onopen"] = null;
  onmessage: EventSourceLike["onmessage"] = null;
  onerror: EventSourceLike["onerror"] = null;
  constructor(public url: string) {
    FakeEventSource.instances.push(this);
  }
  open() {
    this.readyState = 1;
    this.onopen?.call(this as unknown as EventSource, new Event("open"));
  }
  send(data: unknown) {
    const text = typeof data === "string" ? data : JSON.stringify(data);
    this.onmessage?.call(this as unknown as EventSource, new MessageEvent("message", { data: text }));
  }
  /** closed=false: the browser will retry by itself; closed=true: it gave up. */
  fail(closed: boolean) {
    this.readyState = closed ? 2 : 0;
    this.onerror?.call(this as unknown as EventSource, new Event("error"));
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  static last() {
    return FakeEventSource.instances[FakeEventSource.instances.length - 1]!;
  }
}

function jsonResponse(status: number, body: unknown) {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

beforeEach(() => {
  FakeEventSource.instances = [];
});

afterEach(() => {
  vi.useRealTimers();
});

describe("HttpTransport.call", () => {
  it("POSTs the JSON array of arguments to /api/<Method> with credentials and returns result", async () => {
    const fetch = vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => jsonResponse(200, { result: { seq: 3 } }));
    const t = new HttpTransport({ fetch: fetch as typeof globalThis.fetch, EventSource: FakeEventSource });
    const got = await t.call<{ seq: number }>("SetSetting", "general.theme", "dark");
    expect(got).toEqual({ seq: 3 });
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe("/api/SetSetting");
    expect(init?.method).toBe("POST");
    expect(init?.credentials).toBe("same-origin");
    expect(JSON.parse(String(init?.body))).toEqual(["general.theme", "dark"]);
    expect((init?.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
  });

  it("sends an empty array for a method without arguments and the bearer token when it has one", async () => {
    const fetch = vi.fn(async (_u: RequestInfo | URL, _i?: RequestInit) => jsonResponse(200, { result: null }));
    const t = new HttpTransport({ fetch: fetch as typeof globalThis.fetch, token: "tok123", baseUrl: "http://127.0.0.1:9/" });
    await expect(t.call("Doctor")).resolves.toBeNull();
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe("http://127.0.0.1:9/api/Doctor");
    expect(init?.body).toBe("[]");
    expect((init?.headers as Record<string, string>).Authorization).toBe("Bearer tok123");
  });

  it("rejects with the apperr object from an error status", async () => {
    const apperr = {
      code: "setting_invalid",
      i18nKey: "errors.setting_invalid",
      params: { key: "general.theme", reason: "must be one of system, light, dark" },
      message: "invalid value",
      action: { kind: "open-settings", target: "general" },
    };
    const t = new HttpTransport({ fetch: (async () => jsonResponse(400, { error: apperr })) as typeof fetch });
    await expect(t.call("SetSetting", "general.theme", "pink")).rejects.toEqual(apperr);
  });

  it("turns a non-JSON error body into errors.unknown with the raw text", async () => {
    const t = new HttpTransport({ fetch: (async () => new Response("bad gateway", { status: 502 })) as typeof fetch });
    await expect(t.call("GetSettings")).rejects.toMatchObject({
      code: "unknown",
      i18nKey: "errors.unknown",
      message: "HTTP 502: bad gateway",
    });
  });

  it("maps a bare 401 to errors.unauthorized", async () => {
    const t = new HttpTransport({ fetch: (async () => new Response("", { status: 401 })) as typeof fetch });
    await expect(t.call("GetSettings")).rejects.toMatchObject({ code: "unauthorized", i18nKey: "errors.unauthorized" });
  });

  it("turns a network failure into a retryable transport error", async () => {
    const t = new HttpTransport({
      fetch: (async () => {
        throw new TypeError("Failed to fetch");
      }) as typeof fetch,
    });
    await expect(t.call("GetSettings")).rejects.toMatchObject({
      code: "transport_unreachable",
      i18nKey: "common.transport.unreachable",
      params: { message: "Failed to fetch" },
      action: { kind: "retry" },
    });
  });

  it("uses the global fetch when none is given", async () => {
    const spy = vi.spyOn(globalThis, "fetch").mockResolvedValue(jsonResponse(200, { result: 42 }));
    await expect(new HttpTransport().call("X")).resolves.toBe(42);
    expect(spy).toHaveBeenCalledOnce();
  });
});

describe("HttpTransport events", () => {
  it("opens one EventSource at /api/events for all subscribers and delivers parsed events", () => {
    const t = new HttpTransport({ EventSource: FakeEventSource });
    const a: CairnEvent[] = [];
    const b: CairnEvent[] = [];
    const offA = t.subscribe((e) => a.push(e));
    const offB = t.subscribe((e) => b.push(e));
    expect(FakeEventSource.instances).toHaveLength(1);
    const es = FakeEventSource.last();
    expect(es.url).toBe("/api/events");
    es.open();
    es.send({ topic: "settings", seq: 4, type: "settings:changed", data: { values: {} }, time: 1 });
    es.send("not json");
    expect(a).toEqual([{ topic: "settings", seq: 4, type: "settings:changed", data: { values: {} }, time: 1 }]);
    expect(b).toHaveLength(1);
    offA();
    expect(es.closed).toBe(false);
    offB();
    expect(es.closed).toBe(true);
  });

  it("calls onReconnect on every stream's hello (sent once the server subscribed it)", () => {
    const t = new HttpTransport({ EventSource: FakeEventSource });
    const reconnect = vi.fn();
    const got: CairnEvent[] = [];
    t.onReconnect(reconnect);
    t.subscribe((e) => got.push(e));
    const es = FakeEventSource.last();
    es.open();
    expect(reconnect).not.toHaveBeenCalled(); // open alone: not yet subscribed server-side
    es.send({ topic: "", seq: 0, type: "hello", time: 1 });
    expect(reconnect).toHaveBeenCalledTimes(1);
    es.fail(false); // the browser retries the same EventSource…
    expect(FakeEventSource.instances).toHaveLength(1);
    es.open();
    es.send({ topic: "", seq: 0, type: "hello", time: 2 }); // …and the new stream says hello
    expect(reconnect).toHaveBeenCalledTimes(2);
    expect(got).toEqual([]); // hello is the transport's business, not the stores'
  });

  it("says it awaits the connection from opening the stream until its hello", () => {
    vi.useFakeTimers();
    const t = new HttpTransport({ EventSource: FakeEventSource, reconnectDelays: [100] });
    expect(t.awaitingConnection()).toBe(false); // no stream: a store must load at once
    t.subscribe(() => {});
    const first = FakeEventSource.last();
    expect(t.awaitingConnection()).toBe(true);
    first.open();
    expect(t.awaitingConnection()).toBe(true); // open is not subscribed yet
    first.send({ topic: "", seq: 0, type: "hello" });
    expect(t.awaitingConnection()).toBe(false);
    first.fail(true);
    expect(t.awaitingConnection()).toBe(false); // down, and no hello due before the back-off
    vi.advanceTimersByTime(100);
    expect(FakeEventSource.instances).toHaveLength(2);
    expect(t.awaitingConnection()).toBe(true);
    FakeEventSource.last().send({ topic: "", seq: 0, type: "hello" });
    expect(t.awaitingConnection()).toBe(false);
  });

  it("reopens a stream the browser gave up on, with back-off", () => {
    vi.useFakeTimers();
    const t = new HttpTransport({ EventSource: FakeEventSource, reconnectDelays: [100, 1000] });
    const reconnect = vi.fn();
    t.onReconnect(reconnect);
    const got: CairnEvent[] = [];
    t.subscribe((e) => got.push(e));
    const first = FakeEventSource.last();
    first.open();
    first.send({ topic: "", seq: 0, type: "hello" });
    expect(reconnect).toHaveBeenCalledTimes(1);
    reconnect.mockClear();
    first.fail(true);
    expect(first.closed).toBe(true);
    vi.advanceTimersByTime(99);
    expect(FakeEventSource.instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeEventSource.instances).toHaveLength(2);
    const second = FakeEventSource.last();
    second.fail(true); // still down: next delay is longer
    vi.advanceTimersByTime(999);
    expect(FakeEventSource.instances).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeEventSource.instances).toHaveLength(3);
    const third = FakeEventSource.last();
    third.open();
    third.send({ topic: "", seq: 0, type: "hello" });
    expect(reconnect).toHaveBeenCalledTimes(1);
    // a late message from a dead stream is ignored
    first.send({ topic: "settings", seq: 9, type: "x" });
    third.send({ topic: "settings", seq: 10, type: "x" });
    expect(got.map((e) => e.seq)).toEqual([10]);
  });

  it("does not reopen after the last subscriber left", () => {
    vi.useFakeTimers();
    const t = new HttpTransport({ EventSource: FakeEventSource, reconnectDelays: [10] });
    const off = t.subscribe(() => {});
    FakeEventSource.last().fail(true);
    off();
    vi.advanceTimersByTime(100);
    expect(FakeEventSource.instances).toHaveLength(1);
  });
});

describe("tokenFromLocation", () => {
  it("reads ?token=", () => {
    expect(tokenFromLocation({ search: "?token=abc&x=1" })).toBe("abc");
    expect(tokenFromLocation({ search: "" })).toBeNull();
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpTransport, SseParser, takeToken, TOKEN_KEY } from "./http";
import type { CairnEvent } from "./types";

/**
 * The server's side of the event streams a transport opens: fetch of /api/events answers
 * with a body the test writes to (send) and ends (end), or with an error status.
 */
class FakeStreams {
  streams: { init: RequestInit | undefined; controller: ReadableStreamDefaultController<Uint8Array>; aborted: boolean }[] = [];
  /** Status of the next answers (200 unless set). */
  status = 200;
  readonly fetch = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    if (String(url).endsWith("/api/events")) {
      if (this.status !== 200) return new Response('{"error":{"code":"unauthorized"}}', { status: this.status });
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
      const entry = { init, controller, aborted: false };
      init?.signal?.addEventListener("abort", () => {
        entry.aborted = true;
        try {
          controller.error(new DOMException("aborted", "AbortError"));
        } catch {
          /* already closed */
        }
      });
      this.streams.push(entry);
      return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
    }
    return jsonResponse(200, { result: null });
  });
  last() {
    return this.streams[this.streams.length - 1]!;
  }
  send(data: unknown, raw = false, i = this.streams.length - 1) {
    const text = raw ? String(data) : `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
    this.streams[i]!.controller.enqueue(new TextEncoder().encode(text));
  }
  end(i = this.streams.length - 1) {
    this.streams[i]!.controller.close();
  }
}

/** Lets the transport's promise chains (fetch, body reads) run. */
async function flush() {
  for (let i = 0; i < 30; i++) await Promise.resolve();
}

function jsonResponse(status: number, body: unknown) {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("HttpTransport.call", () => {
  it("POSTs the JSON array of arguments to /api/<Method> without cookies and returns result", async () => {
    const fetch = vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => jsonResponse(200, { result: { seq: 3 } }));
    const t = new HttpTransport({ fetch: fetch as typeof globalThis.fetch });
    const got = await t.call<{ seq: number }>("SetSetting", "general.theme", "dark");
    expect(got).toEqual({ seq: 3 });
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe("/api/SetSetting");
    expect(init?.method).toBe("POST");
    expect(init?.credentials).toBe("omit");
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
  it("reads one stream of /api/events with the token as a header, for all subscribers", async () => {
    const f = new FakeStreams();
    const t = new HttpTransport({ fetch: f.fetch as typeof fetch, token: "tok" });
    const a: CairnEvent[] = [];
    const b: CairnEvent[] = [];
    const offA = t.subscribe((e) => a.push(e));
    const offB = t.subscribe((e) => b.push(e));
    await flush();
    expect(f.streams).toHaveLength(1);
    const [url, init] = f.fetch.mock.calls[0]!;
    expect(url).toBe("/api/events");
    expect((init?.headers as Record<string, string>).Authorization).toBe("Bearer tok");
    expect(init?.credentials).toBe("omit");
    f.send({ topic: "settings", seq: 4, type: "settings:changed", data: { values: {} }, time: 1 });
    f.send("not json");
    await flush();
    expect(a).toEqual([{ topic: "settings", seq: 4, type: "settings:changed", data: { values: {} }, time: 1 }]);
    expect(b).toHaveLength(1);
    offA();
    expect(f.last().aborted).toBe(false);
    offB();
    expect(f.last().aborted).toBe(true);
  });

  it("calls onReconnect on every stream's hello (sent once the server subscribed it)", async () => {
    vi.useFakeTimers();
    const f = new FakeStreams();
    const t = new HttpTransport({ fetch: f.fetch as typeof fetch, reconnectDelays: [100] });
    const reconnect = vi.fn();
    const got: CairnEvent[] = [];
    t.onReconnect(reconnect);
    t.subscribe((e) => got.push(e));
    await flush();
    expect(reconnect).not.toHaveBeenCalled(); // open alone: not yet subscribed server-side
    f.send({ topic: "", seq: 0, type: "hello", time: 1 });
    await flush();
    expect(reconnect).toHaveBeenCalledTimes(1);
    f.end(); // the server went away…
    await flush();
    await vi.advanceTimersByTimeAsync(100);
    await flush();
    expect(f.streams).toHaveLength(2);
    f.send({ topic: "", seq: 0, type: "hello", time: 2 }); // …and the new stream says hello
    await flush();
    expect(reconnect).toHaveBeenCalledTimes(2);
    expect(got).toEqual([]); // hello is the transport's business, not the stores'
  });

  it("says it awaits the connection from opening the stream until its hello", async () => {
    vi.useFakeTimers();
    const f = new FakeStreams();
    const t = new HttpTransport({ fetch: f.fetch as typeof fetch, reconnectDelays: [100] });
    expect(t.awaitingConnection()).toBe(false); // no stream: a store must load at once
    t.subscribe(() => {});
    expect(t.awaitingConnection()).toBe(true);
    await flush();
    expect(t.awaitingConnection()).toBe(true); // open is not subscribed yet
    f.send({ topic: "", seq: 0, type: "hello" });
    await flush();
    expect(t.awaitingConnection()).toBe(false);
    f.end();
    await flush();
    expect(t.awaitingConnection()).toBe(false); // down, and no hello due before the back-off
    await vi.advanceTimersByTimeAsync(100);
    await flush();
    expect(f.streams).toHaveLength(2);
    expect(t.awaitingConnection()).toBe(true);
    f.send({ topic: "", seq: 0, type: "hello" });
    await flush();
    expect(t.awaitingConnection()).toBe(false);
  });

  it("reopens a stream that was refused or cut, with back-off, and ignores a dead stream", async () => {
    vi.useFakeTimers();
    const f = new FakeStreams();
    const t = new HttpTransport({ fetch: f.fetch as typeof fetch, reconnectDelays: [100, 1000] });
    const reconnect = vi.fn();
    t.onReconnect(reconnect);
    const got: CairnEvent[] = [];
    t.subscribe((e) => got.push(e));
    await flush();
    f.send({ topic: "", seq: 0, type: "hello" });
    await flush();
    expect(reconnect).toHaveBeenCalledTimes(1);
    reconnect.mockClear();
    f.status = 401; // refused from now on
    f.end();
    await flush();
    await vi.advanceTimersByTimeAsync(99);
    expect(f.fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(f.fetch).toHaveBeenCalledTimes(2); // refused: next delay is longer
    await vi.advanceTimersByTimeAsync(999);
    expect(f.fetch).toHaveBeenCalledTimes(2);
    f.status = 200;
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(f.fetch).toHaveBeenCalledTimes(3);
    f.send({ topic: "", seq: 0, type: "hello" });
    f.send({ topic: "settings", seq: 10, type: "x" });
    await flush();
    expect(reconnect).toHaveBeenCalledTimes(1);
    expect(got.map((e) => e.seq)).toEqual([10]);
  });

  it("does not reopen after the last subscriber left", async () => {
    vi.useFakeTimers();
    const f = new FakeStreams();
    const t = new HttpTransport({ fetch: f.fetch as typeof fetch, reconnectDelays: [10] });
    const off = t.subscribe(() => {});
    await flush();
    f.end();
    off();
    await vi.advanceTimersByTimeAsync(100);
    expect(f.fetch).toHaveBeenCalledTimes(1);
  });
});

describe("SseParser", () => {
  it("joins data lines, skips comments and other fields, and takes any chunking", () => {
    const got: string[] = [];
    const p = new SseParser((d) => got.push(d));
    const wire = 'retry: 2000\n\n: heartbeat\n\ndata: {"a":1}\n\ndata:x\ndata: y\r\n\r\nevent: other\nid: 3\ndata: z\n\n';
    for (const ch of wire) p.push(ch); // one character at a time
    expect(got).toEqual(['{"a":1}', "x\ny", "z"]);
  });
});

describe("takeToken", () => {
  function fakeWindow(href: string, stored: Record<string, string> = {}) {
    const storage = new Map(Object.entries(stored));
    const replaced: string[] = [];
    const w = {
      location: { href },
      history: { state: null, replaceState: (_s: unknown, _t: string, url: string) => void replaced.push(url) },
      sessionStorage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => void storage.set(k, v),
      },
    } as unknown as Window;
    return { w, storage, replaced };
  }

  it("moves ?token= from the address into session storage, keeping the rest of the address", () => {
    const { w, storage, replaced } = fakeWindow("http://127.0.0.1:9/?token=abc&x=1#/settings/general");
    expect(takeToken(w)).toBe("abc");
    expect(storage.get(TOKEN_KEY)).toBe("abc");
    expect(replaced).toEqual(["/?x=1#/settings/general"]);
  });

  it("uses the kept token after a reload, and none when there is none", () => {
    expect(takeToken(fakeWindow("http://127.0.0.1:9/#/x", { [TOKEN_KEY]: "kept" }).w)).toBe("kept");
    const none = fakeWindow("http://127.0.0.1:9/");
    expect(takeToken(none.w)).toBeNull();
    expect(none.replaced).toEqual([]);
  });

  it("a new token in the address wins over the kept one", () => {
    const { w, storage } = fakeWindow("http://127.0.0.1:9/?token=new", { [TOKEN_KEY]: "old" });
    expect(takeToken(w)).toBe("new");
    expect(storage.get(TOKEN_KEY)).toBe("new");
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./client";
import { FakeTransport } from "../test/fakeTransport";
import { PAGE_DATA_ID, pageCallKey, readPageData, withPageCalls } from "./page";

function addBlock(text: string, type = "application/json") {
  const el = document.createElement("script");
  el.type = type;
  el.id = PAGE_DATA_ID;
  el.textContent = text;
  document.body.append(el);
  return el;
}

afterEach(() => {
  document.getElementById(PAGE_DATA_ID)?.remove();
});

describe("readPageData", () => {
  it("reads the calls and the locale `cairn serve` wrote, once", () => {
    const el = addBlock(
      JSON.stringify({
        calls: { GetSettings: { seq: 7, values: { "general.language": "zh-CN" }, specs: [] } },
        locale: { lng: "zh-CN", strings: { common: { hello: "你好" } } },
      }),
    );
    const d = readPageData();
    expect(d.calls).toEqual({ GetSettings: { seq: 7, values: { "general.language": "zh-CN" }, specs: [] } });
    expect(d.locale).toEqual({ lng: "zh-CN", strings: { common: { hello: "你好" } } });
    expect(el.isConnected).toBe(false);
    expect(readPageData()).toEqual({ calls: {}, locale: null });
  });

  it("takes anything missing or malformed for absent", () => {
    expect(readPageData()).toEqual({ calls: {}, locale: null }); // the desktop window
    addBlock("{not json");
    expect(readPageData()).toEqual({ calls: {}, locale: null });
    document.getElementById(PAGE_DATA_ID)?.remove();
    addBlock(JSON.stringify({ calls: { GetSettings: {} } }), "text/plain");
    expect(readPageData()).toEqual({ calls: {}, locale: null });
    document.getElementById(PAGE_DATA_ID)?.remove();
    addBlock(JSON.stringify({ calls: [1], locale: { lng: 3, strings: {} } }));
    expect(readPageData()).toEqual({ calls: {}, locale: null });
  });
});

describe("withPageCalls", () => {
  it("answers the first argument-less call of a method from the page, then asks the backend", async () => {
    const inner = new FakeTransport({ GetSettings: () => ({ seq: 9 }), Echo: (x) => x });
    const t = withPageCalls(inner, { GetSettings: { seq: 7 }, Echo: "from the page" });
    expect(await t.call("GetSettings")).toEqual({ seq: 7 });
    expect(inner.count("GetSettings")).toBe(0);
    expect(await t.call("GetSettings")).toEqual({ seq: 9 });
    expect(inner.count("GetSettings")).toBe(1);
    expect(await t.call("Echo", "an argument")).toBe("an argument"); // not the call the page answered
    expect(t.kind).toBe(inner.kind);
  });

  it("answers a call with arguments by its key, once, and only for the same arguments", async () => {
    const inner = new FakeTransport({ ListSessions: (q) => ({ seq: 9, query: q }) });
    const t = withPageCalls(inner, { [pageCallKey("ListSessions", [""])]: { seq: 3, sessions: [] } });
    expect(pageCallKey("ListSessions", [""])).toBe('ListSessions[""]');
    expect(await t.call("ListSessions", "x")).toEqual({ seq: 9, query: "x" });
    expect(await t.call("ListSessions")).toEqual({ seq: 9, query: undefined });
    expect(await t.call("ListSessions", "")).toEqual({ seq: 3, sessions: [] });
    expect(await t.call("ListSessions", "")).toEqual({ seq: 9, query: "" });
    expect(inner.count("ListSessions")).toBe(3);
  });

  it("gives a store started before the first render (start.ts: providers on the desktop) its snapshot within microtasks, with no call", async () => {
    const inner = new FakeTransport({ ListProviders: () => ({ seq: 9, providers: [] }), ListSessions: () => ({ seq: 9, sessions: [] }) });
    const sessions = { seq: 4, sessions: [{ id: "s1", title: "Earlier" }] };
    const client = createClient(
      withPageCalls(inner, { ListProviders: { seq: 4, providers: [] }, [pageCallKey("ListSessions", [""])]: sessions }),
    );
    client.stores.providers.start();
    client.stores.sessionList.start();
    for (let i = 0; i < 5; i++) await Promise.resolve(); // no task boundary: before any paint
    expect(client.stores.providers.getState().data).toEqual({ seq: 4, providers: [] });
    expect(client.stores.sessionList.getState().data).toEqual(sessions);
    expect(inner.count("ListProviders") + inner.count("ListSessions")).toBe(0);
  });

  it("forgets the page's answers once the event stream says hello: later loads are fresh", async () => {
    const inner = new FakeTransport({ GetSettings: () => ({ seq: 9 }), ListProviders: () => ({ seq: 12, providers: [] }) });
    const t = withPageCalls(inner, { GetSettings: { seq: 7 }, ListProviders: { seq: 5, providers: [{ id: "gone" }] } });
    expect(await t.call("GetSettings")).toEqual({ seq: 7 });
    const reloaded: unknown[] = [];
    t.onReconnect(() => void t.call("ListProviders").then((r) => reloaded.push(r)));
    inner.reconnect(); // the hello: a store that waited for it loads now
    await Promise.resolve();
    await Promise.resolve();
    expect(reloaded).toEqual([{ seq: 12, providers: [] }]);
    expect(inner.count("ListProviders")).toBe(1);
  });

  it("passes events, reconnects and the stream's state through, and is the transport itself without page data", () => {
    const inner = new FakeTransport();
    expect(withPageCalls(inner, {})).toBe(inner);
    const t = withPageCalls(inner, { GetSettings: { seq: 1 } });
    const got: unknown[] = [];
    let reconnects = 0;
    t.subscribe((ev) => got.push(ev.seq));
    t.onReconnect(() => reconnects++);
    inner.emit({ topic: "settings", seq: 2, type: "x" });
    inner.reconnect();
    expect(got).toEqual([2]);
    expect(reconnects).toBe(1);
    expect(t.awaitingConnection?.()).toBe(false);
    Object.assign(inner, { awaitingConnection: () => true });
    expect(t.awaitingConnection?.()).toBe(true);
  });
});

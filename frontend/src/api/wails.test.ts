import { describe, expect, it, vi } from "vitest";
import { detectTransport } from "./transport";
import { HttpTransport } from "./http";
import type { CairnEvent } from "./types";
import { WAILS_EVENT, WailsTransport, parseEvent } from "./wails";

type Listener = (...data: unknown[]) => void;

/** A window with Wails' injected globals: bound methods and the runtime event bus. */
function fakeWailsWindow(methods: Record<string, (...a: unknown[]) => Promise<unknown>>) {
  const listeners = new Map<string, Set<Listener>>();
  const runtime = {
    EventsOn: vi.fn((name: string, cb: Listener) => {
      const set = listeners.get(name) ?? new Set<Listener>();
      set.add(cb);
      listeners.set(name, set);
      return () => set.delete(cb);
    }),
  };
  const w = { go: { main: { App: methods } }, runtime, location: { search: "" } } as unknown as Window;
  const emit = (name: string, ...data: unknown[]) => listeners.get(name)?.forEach((cb) => cb(...data));
  return { w, runtime, emit, listeners };
}

describe("WailsTransport", () => {
  it("calls window.go.main.App[method] with the arguments", async () => {
    const SetSetting = vi.fn(async (k: unknown, v: unknown) => ({ seq: 2, values: { [String(k)]: v } }));
    const { w } = fakeWailsWindow({ SetSetting });
    const t = new WailsTransport(w);
    await expect(t.call("SetSetting", "general.theme", "dark")).resolves.toEqual({
      seq: 2,
      values: { "general.theme": "dark" },
    });
    expect(SetSetting).toHaveBeenCalledWith("general.theme", "dark");
  });

  it("passes the apperr object a binding rejects with through", async () => {
    const apperr = { code: "setting_unknown", i18nKey: "errors.setting_unknown", params: { key: "x" }, message: "no x" };
    const { w } = fakeWailsWindow({ SetSetting: () => Promise.reject(apperr) });
    await expect(new WailsTransport(w).call("SetSetting", "x", 1)).rejects.toEqual(apperr);
  });

  it("turns a plain string rejection (no ErrorFormatter) into errors.unknown with the raw text", async () => {
    const { w } = fakeWailsWindow({ Doctor: () => Promise.reject("database is locked") });
    await expect(new WailsTransport(w).call("Doctor")).rejects.toMatchObject({
      code: "unknown",
      i18nKey: "errors.unknown",
      params: { message: "database is locked" },
      message: "database is locked",
    });
  });

  it("parses an apperr serialised as a JSON string", async () => {
    const apperr = { code: "not_found", i18nKey: "errors.not_found", message: "gone" };
    const { w } = fakeWailsWindow({ X: () => Promise.reject(JSON.stringify(apperr)) });
    await expect(new WailsTransport(w).call("X")).rejects.toEqual({ ...apperr, params: undefined, action: undefined });
  });

  it("rejects with errors.method_unknown for a method that is not bound", async () => {
    const { w } = fakeWailsWindow({});
    await expect(new WailsTransport(w).call("Nope")).rejects.toMatchObject({
      code: "method_unknown",
      i18nKey: "errors.method_unknown",
      params: { method: "Nope" },
    });
  });

  it("listens to cairn:event once and fans out to every subscriber", () => {
    const { w, runtime, emit, listeners } = fakeWailsWindow({});
    const t = new WailsTransport(w);
    const a: CairnEvent[] = [];
    const b: CairnEvent[] = [];
    const offA = t.subscribe((e) => a.push(e));
    const offB = t.subscribe((e) => b.push(e));
    expect(runtime.EventsOn).toHaveBeenCalledTimes(1);
    expect(runtime.EventsOn.mock.calls[0]![0]).toBe(WAILS_EVENT);
    const ev = { topic: "settings", seq: 1, type: "settings:changed", data: { values: {} }, time: 5 };
    emit(WAILS_EVENT, ev);
    emit("other", ev);
    expect(a).toEqual([ev]);
    expect(b).toEqual([ev]);
    offA();
    offB();
    expect(listeners.get(WAILS_EVENT)?.size).toBe(0);
  });

  it("says hello once each time it starts listening, after the task that started it: the stores catch up", async () => {
    const { w } = fakeWailsWindow({});
    const t = new WailsTransport(w);
    const hello = vi.fn();
    t.onReconnect(hello);
    const off = t.subscribe(() => {});
    t.subscribe(() => {})(); // a second subscriber does not listen again
    expect(hello).not.toHaveBeenCalled(); // not within the task that subscribed
    await new Promise((r) => setTimeout(r, 0));
    expect(hello).toHaveBeenCalledTimes(1);
    off(); // nobody listens: broadcasts are missed from here on
    t.subscribe(() => {});
    await new Promise((r) => setTimeout(r, 0));
    expect(hello).toHaveBeenCalledTimes(2);
    const removed = vi.fn();
    t.onReconnect(removed)();
    t.subscribe(() => {})();
    t.subscribe(() => {});
    await new Promise((r) => setTimeout(r, 0));
    expect(removed).not.toHaveBeenCalled();
  });
});

describe("detectTransport", () => {
  it("picks Wails when window.go exists", () => {
    const { w } = fakeWailsWindow({});
    expect(detectTransport(w)).toBeInstanceOf(WailsTransport);
  });

  it("picks HTTP otherwise", () => {
    const t = detectTransport({ location: { search: "?token=t" } } as unknown as Window);
    expect(t).toBeInstanceOf(HttpTransport);
    expect(t.kind).toBe("http");
  });
});

describe("parseEvent", () => {
  it("accepts objects and JSON text, rejects things without a type", () => {
    expect(parseEvent('{"topic":"a","seq":1,"type":"t"}')).toMatchObject({ topic: "a", seq: 1, type: "t" });
    expect(parseEvent({ topic: "a" })).toBeNull();
    expect(parseEvent("{")).toBeNull();
    expect(parseEvent(null)).toBeNull();
  });
});

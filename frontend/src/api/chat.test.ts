import { describe, expect, it, vi } from "vitest";
import { FakeTransport } from "../test/fakeTransport";
import { applySessionEvent, applySessionsEvent, createSessionStore, chatApi, type Message, type Part, type Session, type SessionSnapshot } from "./chat";
import { createClient } from "./client";
import { RELOAD } from "./store";
import type { CairnEvent } from "./types";

const flush = () => new Promise((r) => setTimeout(r, 0));

const session = (over: Partial<Session> = {}): Session => ({
  id: "s1",
  kind: "chat",
  title: "t",
  providerId: "",
  model: "",
  systemPrompt: "",
  temperature: null,
  topP: null,
  maxTokens: 0,
  contextMessages: 0,
  toolsets: [],
  reasoning: {},
  state: "idle",
  createdAt: 1,
  updatedAt: 1,
  activeAt: 1,
  pinned: false,
  archived: false,
  ...over,
});

const part = (over: Partial<Part>): Part => ({
  id: "p1",
  messageId: "m2",
  index: 0,
  round: 0,
  type: "text",
  state: "streaming",
  text: "",
  createdAt: 1,
  updatedAt: 1,
  ...over,
});

const msg = (over: Partial<Message>): Message => ({
  id: "m1",
  sessionId: "s1",
  seq: 1,
  role: "user",
  status: "complete",
  parts: [],
  createdAt: 1,
  updatedAt: 1,
  ...over,
});

function snapshot(seq = 3): SessionSnapshot {
  return {
    seq,
    session: session(),
    messages: [
      msg({ id: "m1", seq: 1, parts: [part({ id: "u1", messageId: "m1", state: "done", text: "hi" })] }),
      msg({ id: "m2", seq: 2, role: "assistant", status: "streaming", parts: [part({ id: "p1", text: "Hel" })] }),
    ],
    state: "streaming",
    editMode: "branch",
  };
}

const ev = (seq: number, type: string, data: unknown): CairnEvent => ({ topic: "session:s1", seq, type, data });

function apply(state: SessionSnapshot, e: CairnEvent): SessionSnapshot {
  const next = applySessionEvent(state, e);
  if (next === RELOAD || next === undefined) throw new Error(`expected a new state for ${e.type}`);
  return next;
}

describe("applySessionEvent", () => {
  it("appends deltas to the part by id at the given UTF-16 offset", () => {
    let s = snapshot();
    s = apply(s, ev(4, "part:delta", { messageId: "m2", partId: "p1", index: 0, field: "text", offset: 3, text: "lo 👋" }));
    s = apply(s, ev(5, "part:delta", { messageId: "m2", partId: "p1", index: 0, field: "text", offset: 8, text: "!" }));
    expect(s.messages[1]!.parts![0]!.text).toBe("Hello 👋!");
    // a delta the window already has (same offset) replaces instead of duplicating
    s = apply(s, ev(6, "part:delta", { messageId: "m2", partId: "p1", index: 0, field: "text", offset: 8, text: "!" }));
    expect(s.messages[1]!.parts![0]!.text).toBe("Hello 👋!");
  });

  it("asks for a reload when a delta starts beyond what the window has, or names an unknown part", () => {
    const s = snapshot();
    expect(applySessionEvent(s, ev(4, "part:delta", { messageId: "m2", partId: "p1", field: "text", offset: 10, text: "x" }))).toBe(RELOAD);
    expect(applySessionEvent(s, ev(4, "part:delta", { messageId: "m2", partId: "nope", field: "text", offset: 0, text: "x" }))).toBe(RELOAD);
    expect(applySessionEvent(s, ev(4, "part:appended", part({ id: "p9", messageId: "gone" })))).toBe(RELOAD);
  });

  it("appends new parts in index order and replaces updated ones by id", () => {
    let s = snapshot();
    s = apply(s, ev(4, "part:appended", part({ id: "p2", index: 1, type: "tool-call", text: undefined, tool: { callId: "c1", name: "web_search", arguments: "" } })));
    s = apply(s, ev(5, "part:delta", { messageId: "m2", partId: "p2", index: 1, field: "arguments", offset: 0, text: '{"q":' }));
    s = apply(s, ev(6, "part:delta", { messageId: "m2", partId: "p2", index: 1, field: "arguments", offset: 5, text: '"go"}' }));
    expect(s.messages[1]!.parts!.map((p) => p.id)).toEqual(["p1", "p2"]);
    expect(s.messages[1]!.parts![1]!.tool!.arguments).toBe('{"q":"go"}');
    s = apply(s, ev(7, "part:updated", part({ id: "p1", state: "done", text: "Hello" })));
    expect(s.messages[1]!.parts![0]).toMatchObject({ state: "done", text: "Hello" });
    expect(s.messages[1]!.parts).toHaveLength(2);
  });

  it("keeps unchanged messages identical (so memoized rows do not re-render)", () => {
    const s0 = snapshot();
    const s1 = apply(s0, ev(4, "part:delta", { messageId: "m2", partId: "p1", field: "text", offset: 3, text: "p" }));
    expect(s1.messages[0]).toBe(s0.messages[0]);
    expect(s1.messages[1]).not.toBe(s0.messages[1]);
  });

  it("applies message:updated without dropping the parts, hidden messages, state and session changes", () => {
    let s = snapshot();
    s = apply(s, ev(4, "message:updated", { ...msg({ id: "m2", seq: 2, role: "assistant", status: "stopped" }), parts: undefined, usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 } }));
    expect(s.messages[1]).toMatchObject({ status: "stopped", usage: { totalTokens: 7 } });
    expect(s.messages[1]!.parts![0]!.text).toBe("Hel");
    s = apply(s, ev(5, "session:state", { sessionId: "s1", state: "idle" }));
    expect(s.state).toBe("idle");
    expect(s.session.state).toBe("idle");
    s = apply(s, ev(6, "session:updated", session({ title: "Renamed" })));
    expect(s.session.title).toBe("Renamed");
    s = apply(s, ev(7, "messages:hidden", { sessionId: "s1", messageIds: ["m2"] }));
    expect(s.messages.map((m) => m.id)).toEqual(["m1"]);
    s = apply(s, ev(8, "message:appended", msg({ id: "m3", seq: 2, role: "assistant", status: "streaming", parts: undefined })));
    expect(s.messages.map((m) => m.id)).toEqual(["m1", "m3"]);
    expect(s.messages[1]!.parts).toEqual([]);
    s = apply(s, ev(9, "session:deleted", { sessionId: "s1" }));
    expect(s.deleted).toBe(true);
  });

  it("reloads the snapshot when another version is chosen", () => {
    expect(applySessionEvent(snapshot(), ev(4, "branch:selected", { sessionId: "s1", messageId: "m1" }))).toBe(RELOAD);
  });
});

describe("session store (seq filtering)", () => {
  it("applies only events newer than the snapshot, in order, and reloads on a gap", async () => {
    const load = vi.fn(async () => snapshot(3));
    const t = new FakeTransport({ GetSession: load });
    const store = createSessionStore(t, chatApi(t), "s1");
    store.start();
    await flush();
    const delta = (seq: number, offset: number, text: string) =>
      t.emit(ev(seq, "part:delta", { messageId: "m2", partId: "p1", index: 0, field: "text", offset, text }));
    delta(3, 0, "XXX"); // already in the snapshot: ignored
    delta(4, 3, "lo");
    delta(4, 3, "lo"); // duplicate seq: ignored
    t.emit({ ...ev(5, "part:delta", { messageId: "m2", partId: "p1", field: "text", offset: 5, text: "?" }), topic: "session:other" });
    delta(5, 5, "!");
    expect(store.getState().data!.messages[1]!.parts![0]!.text).toBe("Hello!");
    expect(load).toHaveBeenCalledTimes(1);
    delta(9, 6, "lost"); // 6..8 missing
    await flush();
    expect(load).toHaveBeenCalledTimes(2);
    store.dispose();
  });

  it("holds events that arrive while the snapshot loads", async () => {
    let resolve!: (s: SessionSnapshot) => void;
    const pending = new Promise<SessionSnapshot>((r) => (resolve = r));
    const t = new FakeTransport({ GetSession: () => pending });
    const store = createSessionStore(t, chatApi(t), "s1");
    store.start();
    t.emit(ev(4, "part:delta", { messageId: "m2", partId: "p1", field: "text", offset: 3, text: "lo" }));
    resolve(snapshot(3));
    await flush();
    expect(store.getState().data!.messages[1]!.parts![0]!.text).toBe("Hello");
  });

  it("is shared per session and disposed when the last view lets go", async () => {
    const t = new FakeTransport({ GetSession: async () => snapshot(3) });
    const client = createClient(t);
    const a = client.sessions.get("s1");
    expect(client.sessions.get("s1")).toBe(a);
    const releaseA = client.sessions.retain(a);
    const releaseB = client.sessions.retain(a);
    await flush();
    expect(t.subscribers).toBe(1);
    releaseA();
    expect(t.subscribers).toBe(1);
    releaseB();
    expect(t.subscribers).toBe(0);
    expect(client.sessions.ids).toEqual([]);
  });
});

describe("applySessionsEvent", () => {
  it("upserts by id, keeps newest activity first, and removes", () => {
    let s = { seq: 1, sessions: [session({ id: "a", activeAt: 5 }), session({ id: "b", activeAt: 3 })] };
    const up = applySessionsEvent(s, { topic: "sessions", seq: 2, type: "sessions:upserted", data: session({ id: "b", activeAt: 9, title: "new" }) });
    if (up === RELOAD || !up) throw new Error("no state");
    s = up;
    expect(s.sessions.map((x) => x.id)).toEqual(["b", "a"]);
    expect(s.sessions[0]!.title).toBe("new");
    const rm = applySessionsEvent(s, { topic: "sessions", seq: 3, type: "sessions:removed", data: { sessionId: "a" } });
    if (rm === RELOAD || !rm) throw new Error("no state");
    expect(rm.sessions.map((x) => x.id)).toEqual(["b"]);
    expect(applySessionsEvent(s, { topic: "sessions", seq: 4, type: "other" })).toBeUndefined();
  });
  it("keeps pinned first and does not move a renamed conversation", () => {
    const s = { seq: 1, sessions: [session({ id: "a", activeAt: 5 }), session({ id: "b", activeAt: 3 }), session({ id: "c", activeAt: 1 })] };
    const renamed = applySessionsEvent(s, { topic: "sessions", seq: 2, type: "sessions:upserted", data: session({ id: "c", activeAt: 1, updatedAt: 99, title: "renamed" }) });
    if (renamed === RELOAD || !renamed) throw new Error("no state");
    expect(renamed.sessions.map((x) => x.id)).toEqual(["a", "b", "c"]);
    const pinned = applySessionsEvent(renamed, { topic: "sessions", seq: 3, type: "sessions:upserted", data: session({ id: "c", activeAt: 1, pinned: true }) });
    if (pinned === RELOAD || !pinned) throw new Error("no state");
    expect(pinned.sessions.map((x) => x.id)).toEqual(["c", "a", "b"]);
  });
});

import { RELOAD, TopicStore } from "./store";
import type * as wire from "./generated";
import type { CairnEvent, Transport } from "./types";

// Wire types of the chat facade (app_chat.go, backend/chat/types.go). Field names follow
// the Go structs' JSON tags exactly.

export type SessionKind = "chat" | "task";
export type SessionStateName = wire.ChatState;
export type Session = wire.ChatSession;
export type PartType = wire.ChatPartType;
export type ToolProgress = wire.ToolsProgress;
export type ToolInfo = wire.ChatToolInfo;
export type StatusInfo = wire.ChatStatusInfo;
export type Part = wire.ChatPart;
export type Usage = wire.LLMUsage;

export type MessageStatus = "complete" | "streaming" | "stopped" | "error" | "interrupted";

export type Message = wire.ChatMessage;
export type SessionList = wire.ChatSessionList;
export type SessionSnapshot = wire.ChatSnapshot & {
  /** Set by the store when the session was deleted (session:deleted). */
  deleted?: boolean;
};

export type SendResult = wire.ChatSendResult;
export type Attachment = wire.ChatAttachment;
export type AttachmentInput = wire.ChatAttachmentInput;
export type AttachmentPreview = wire.FilesPreview;
export type AttachmentUpload = wire.FilesUpload;
export type SessionInput = wire.ChatSessionInput;
export type SessionPatch = wire.ChatSessionPatch;
export type PartDelta = wire.ChatPartDelta;
export type MessageSearchResult = wire.ChatSearchResult;
export type MessageSearchHit = wire.ChatSearchHit;
export type SnippetSpan = wire.ChatSnippetSpan;

export const SESSIONS_TOPIC = "sessions";
export const sessionTopic = (id: string) => `session:${id}`;

export const SessionEvents = {
  messageAppended: "message:appended",
  messageUpdated: "message:updated",
  messagesHidden: "messages:hidden",
  branchSelected: "branch:selected",
  partAppended: "part:appended",
  partDelta: "part:delta",
  partUpdated: "part:updated",
  state: "session:state",
  updated: "session:updated",
  deleted: "session:deleted",
  sessionsUpserted: "sessions:upserted",
  sessionsRemoved: "sessions:removed",
} as const;

export function chatApi(t: Transport) {
  return {
    listSessions: (query = "") => t.call<SessionList>("ListSessions", query),
    createSession: (input: SessionInput) => t.call<Session>("CreateSession", input),
    updateSession: (id: string, patch: SessionPatch) => t.call<Session>("UpdateSession", id, patch),
    renameSession: (id: string, title: string) => t.call<Session>("RenameSession", id, title),
    deleteSession: (id: string) => t.call<void>("DeleteSession", id),
    pinSession: (id: string, pinned: boolean) => t.call<Session>("PinSession", id, pinned),
    archiveSession: (id: string, archived: boolean) => t.call<Session>("ArchiveSession", id, archived),
    searchMessages: (query: string) => t.call<MessageSearchResult>("SearchMessages", query),
    getSession: (id: string) => t.call<SessionSnapshot>("GetSession", id),
    send: (sessionId: string, text: string, attachments: AttachmentInput[] = []) =>
      t.call<SendResult>("SendMessage", sessionId, text, attachments),
    uploadAttachment: (name: string, uploadId: string, dataBase64: string, last: boolean) =>
      t.call<AttachmentUpload>("UploadAttachment", name, uploadId, dataBase64, last),
    attachmentPreview: (id: string) => t.call<AttachmentPreview>("GetAttachmentPreview", id),
    stop: (sessionId: string) => t.call<void>("StopSession", sessionId),
    regenerate: (sessionId: string) => t.call<SendResult>("Regenerate", sessionId),
    editAndResend: (sessionId: string, messageId: string, text: string) =>
      t.call<SendResult>("EditAndResend", sessionId, messageId, text),
    selectBranch: (sessionId: string, messageId: string) => t.call<SessionSnapshot>("SelectBranch", sessionId, messageId),
  };
}

export type ChatApi = ReturnType<typeof chatApi>;

// ——— folding events into snapshots ———

/** ListSessions' order: pinned first, then by the last message (a rename does not move one). */
export function byActivity(a: Session, b: Session) {
  return Number(b.pinned) - Number(a.pinned) || b.activeAt - a.activeAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Applies one `sessions` event to the sidebar list (newest activity first). */
export function applySessionsEvent(state: SessionList, ev: CairnEvent): SessionList | typeof RELOAD | undefined {
  switch (ev.type) {
    case SessionEvents.sessionsUpserted: {
      const s = ev.data as Session | undefined;
      if (!s || typeof s.id !== "string") return RELOAD;
      // A sub-agent's conversation is opened from its parent's card, never listed.
      if (s.parentId) return undefined;
      const rest = state.sessions.filter((x) => x.id !== s.id);
      return { ...state, seq: ev.seq, sessions: [...rest, s].sort(byActivity) };
    }
    case SessionEvents.sessionsRemoved: {
      const id = (ev.data as { sessionId?: string } | undefined)?.sessionId;
      if (!id) return RELOAD;
      return { ...state, seq: ev.seq, sessions: state.sessions.filter((x) => x.id !== id) };
    }
    default:
      return undefined;
  }
}

const byIndex = (a: Part, b: Part) => a.index - b.index;

/** Replaces message i (and keeps everything else) — the list is copied, messages are shared. */
function withMessage(state: SessionSnapshot, i: number, m: Message): SessionSnapshot {
  const messages = state.messages.slice();
  messages[i] = m;
  return { ...state, messages };
}

/** Index of a message by id, searched from the end (the streaming message is the last). */
function findMessage(messages: Message[], id: string): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return i;
  return -1;
}

function upsertPart(parts: Part[], p: Part): Part[] {
  const i = parts.findIndex((x) => x.id === p.id);
  if (i >= 0) {
    const next = parts.slice();
    next[i] = p;
    return next;
  }
  const next = [...parts, p];
  return p.index < (parts[parts.length - 1]?.index ?? -1) ? next.sort(byIndex) : next;
}

/**
 * Applies one `session:<id>` event to the session snapshot. Parts are updated by id;
 * anything that does not fit (a delta for an unknown part, an offset beyond what this
 * window has) asks the store to reload the snapshot instead of guessing.
 */
export function applySessionEvent(state: SessionSnapshot, ev: CairnEvent): SessionSnapshot | typeof RELOAD | undefined {
  const d = ev.data as Record<string, unknown> | undefined;
  switch (ev.type) {
    case SessionEvents.messageAppended: {
      const m = d as unknown as Message | undefined;
      if (!m?.id) return RELOAD;
      const msg: Message = { ...m, parts: (m.parts ?? []).slice().sort(byIndex) };
      const i = findMessage(state.messages, m.id);
      if (i >= 0) return withMessage(state, i, msg);
      const messages = [...state.messages, msg];
      if (state.messages.length > 0 && msg.seq < state.messages[state.messages.length - 1]!.seq) {
        messages.sort((a, b) => a.seq - b.seq);
      }
      return { ...state, messages };
    }
    case SessionEvents.messageUpdated: {
      const m = d as unknown as Message | undefined;
      if (!m?.id) return RELOAD;
      const i = findMessage(state.messages, m.id);
      if (i < 0) return RELOAD;
      const prev = state.messages[i]!;
      return withMessage(state, i, { ...prev, ...m, parts: m.parts ?? prev.parts });
    }
    case SessionEvents.messagesHidden: {
      // They left the path for a new version; they stay stored on their branch.
      const ids = new Set((d?.messageIds as string[] | undefined) ?? []);
      if (ids.size === 0) return undefined;
      return { ...state, messages: state.messages.filter((m) => !ids.has(m.id)) };
    }
    case SessionEvents.branchSelected:
      // Another version was chosen: the path after it is another one.
      return RELOAD;
    case SessionEvents.partAppended:
    case SessionEvents.partUpdated: {
      const p = d as unknown as Part | undefined;
      if (!p?.id || !p.messageId) return RELOAD;
      const i = findMessage(state.messages, p.messageId);
      if (i < 0) return RELOAD;
      const m = state.messages[i]!;
      return withMessage(state, i, { ...m, parts: upsertPart(m.parts ?? [], p) });
    }
    case SessionEvents.partDelta: {
      const delta = d as unknown as PartDelta | undefined;
      if (!delta?.partId || !delta.messageId) return RELOAD;
      const i = findMessage(state.messages, delta.messageId);
      if (i < 0) return RELOAD;
      const m = state.messages[i]!;
      const parts = m.parts ?? [];
      const j = parts.findIndex((x) => x.id === delta.partId);
      if (j < 0) return RELOAD;
      const p = parts[j]!;
      let next: Part;
      if (delta.field === "arguments") {
        const cur = p.tool?.arguments ?? "";
        if (delta.offset > cur.length) return RELOAD;
        next = { ...p, tool: { ...(p.tool ?? { callId: "", name: "" }), arguments: cur.slice(0, delta.offset) + delta.text } };
      } else {
        const cur = p.text ?? "";
        if (delta.offset > cur.length) return RELOAD;
        next = { ...p, text: cur.slice(0, delta.offset) + delta.text };
      }
      const nextParts = parts.slice();
      nextParts[j] = next;
      return withMessage(state, i, { ...m, parts: nextParts });
    }
    case SessionEvents.state: {
      const st = d?.state as SessionStateName | undefined;
      if (!st) return RELOAD;
      return { ...state, state: st, session: { ...state.session, state: st } };
    }
    case SessionEvents.updated: {
      const s = d as unknown as Session | undefined;
      if (!s?.id) return RELOAD;
      return { ...state, session: { ...s, state: s.state ?? state.state } };
    }
    case SessionEvents.deleted:
      return { ...state, deleted: true };
    default:
      return undefined;
  }
}

/** A store for one open session; the view that shows it starts and disposes it. */
export function createSessionStore(t: Transport, api: ChatApi, id: string): TopicStore<SessionSnapshot> {
  return new TopicStore<SessionSnapshot>(t, {
    topic: sessionTopic(id),
    load: () => api.getSession(id),
    apply: applySessionEvent,
  });
}

import type * as wire from "./generated";
import type { CairnEvent, Transport } from "./types";

// Wire types of the knowledge base facade (app_kb.go, backend/kb).

export type KnowledgeBase = wire.KbKB;
export type KbFile = wire.KbFile;
export type KbFolder = wire.KbFolder;
export type KbHit = wire.KbHit;
export type KbFileState = wire.KbState;
export type KbProgress = wire.KbProgress;
export type KbReembedProgress = wire.KbReembedProgress;
export type KbSessionKBs = wire.KbSessionKBs;
export type KbFileView = wire.KbFileView;
export type KbPassage = wire.KbPassage;

/**
 * kb_search's display (backend/kb.SearchDisplay, a tool result rather than a facade type):
 * the knowledge bases searched, whether they were the session's attached ones, the passages.
 */
export interface KbSearchDisplay {
  query: string;
  kbs: string[];
  attached?: boolean;
  hits: KbHit[];
}

/**
 * The size of one part of a file sent to AddKBUploadPart: its base64 (4/3 of it) stays
 * well under the 8 MiB request body `cairn serve` takes.
 */
export const UPLOAD_PART = 4 << 20;

/** The topic of the list of knowledge bases (kb:changed, kb:reembed, kb:attached). */
export const KB_TOPIC = "kb";
/** The topic of one knowledge base's file progress (kb:file). */
export const kbFilesTopic = (id: string) => `kb:${id}`;

/** Reads a File (a drop or a picker) as base64 for AddKBUpload. */
export function fileToBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => {
      const url = String(r.result ?? "");
      resolve(url.slice(url.indexOf(",") + 1));
    };
    r.onerror = () => reject(r.error ?? new Error("read failed"));
    r.readAsDataURL(file);
  });
}

/** Knowledge bases: the bases, their files and folders, search, and sessions' attachments. */
export function kbApi(t: Transport) {
  return {
    list: async (): Promise<KnowledgeBase[]> => (await t.call<KnowledgeBase[] | null>("ListKBs")) ?? [],
    create: (name: string, embedding: string) => t.call<KnowledgeBase>("CreateKB", { name, embedding }),
    rename: (id: string, name: string) => t.call<KnowledgeBase>("RenameKB", id, name),
    remove: (id: string) => t.call<void>("DeleteKB", id),
    setEmbedding: (id: string, spec: string) => t.call<KnowledgeBase>("SetKBEmbedding", id, spec),
    setRerank: (id: string, spec: string) => t.call<KnowledgeBase>("SetKBRerank", id, spec),
    files: async (id: string): Promise<KbFile[]> => (await t.call<KbFile[] | null>("ListKBFiles", id)) ?? [],
    folders: async (id: string): Promise<KbFolder[]> => (await t.call<KbFolder[] | null>("ListKBFolders", id)) ?? [],
    /** Adds a file by its content: in one call, or in parts when it is larger than one part. */
    upload: async (id: string, file: Blob, name: string, partSize = UPLOAD_PART): Promise<KbFile> => {
      if (file.size <= partSize) return t.call<KbFile>("AddKBUpload", id, name, await fileToBase64(file));
      let uploadId = "";
      for (let off = 0; ; off += partSize) {
        const last = off + partSize >= file.size;
        const part = await fileToBase64(file.slice(off, off + partSize));
        const r = await t.call<wire.KbUploadResult>("AddKBUploadPart", id, name, uploadId, part, last);
        uploadId = r.uploadId;
        if (last && r.file) return r.file;
        if (last) throw new Error(`upload of ${name} ended without a file`);
      }
    },
    addText: (id: string, title: string, text: string) => t.call<KbFile>("AddKBText", id, title, text),
    addFolder: (id: string, path: string, ignore: string[], sync: boolean) => t.call<KbFolder>("AddKBFolder", id, path, { ignore }, sync),
    setFolderSync: (folderId: string, sync: boolean) => t.call<KbFolder>("SetKBFolderSync", folderId, sync),
    removeFolder: (folderId: string) => t.call<void>("RemoveKBFolder", folderId),
    removeFile: (fileId: string) => t.call<void>("RemoveKBFile", fileId),
    retry: (fileId: string) => t.call<void>("RetryKBFile", fileId),
    cancel: (fileId: string) => t.call<void>("CancelKBFile", fileId),
    pause: (id: string, fileId = "") => t.call<void>("PauseKB", id, fileId),
    resume: (id: string, fileId = "") => t.call<void>("ResumeKB", id, fileId),
    reindex: (id: string) => t.call<void>("ReindexKB", id),
    search: async (query: string, kbs: string[], topK = 10): Promise<KbHit[]> => (await t.call<KbHit[] | null>("SearchKB", { query, kbs, topK })) ?? [],
    /** A file's passages in order, for the viewer a hit opens. */
    fileView: async (fileId: string): Promise<KbFileView> => {
      const v = await t.call<KbFileView>("GetKBFileView", fileId);
      return { ...v, passages: v.passages ?? [] };
    },
    /** Opens a file added from disk with the desktop's default application (desktop only). */
    openFile: (fileId: string) => t.call<void>("OpenKBFile", fileId),
    sessionKBs: async (sessionId: string): Promise<string[]> => (await t.call<string[] | null>("GetSessionKBs", sessionId)) ?? [],
    setSessionKBs: async (sessionId: string, ids: string[]): Promise<string[]> => (await t.call<string[] | null>("SetSessionKBs", sessionId, ids)) ?? [],
  };
}

export type KbApi = ReturnType<typeof kbApi>;

/** Whether an event changes what the Knowledge page shows of the list or of base id. */
export function kbEventTouches(ev: CairnEvent, id: string | null): boolean {
  return ev.topic === KB_TOPIC || (id !== null && ev.topic === kbFilesTopic(id));
}

/** Folds a file's progress into a list; a file not in it (a new one) asks for a reload. */
export function applyKbProgress(files: KbFile[], p: KbProgress): KbFile[] | null {
  const i = files.findIndex((f) => f.id === p.fileId);
  if ((p.state as string) === "removed") return i < 0 ? files : files.filter((f) => f.id !== p.fileId);
  if (i < 0) return null;
  const f = files[i]!;
  const next = { ...f, state: p.state, chunks: p.chunks, embedded: p.embedded, errorCode: p.errorCode };
  if (p.state !== "error") next.errorMessage = undefined;
  return [...files.slice(0, i), next, ...files.slice(i + 1)];
}

/** Whether a tool result's display is kb_search's. */
export function isKbSearchDisplay(name: string | undefined, display: unknown): display is KbSearchDisplay {
  if (name !== "kb_search" || !display || typeof display !== "object") return false;
  const d = display as Partial<KbSearchDisplay>;
  return Array.isArray(d.kbs) && Array.isArray(d.hits);
}

/** "p. 3", "pp. 2–4", "lines 5–9" parts of a hit's position, for a citation. */
export function hitPosition(h: Pick<KbHit, "pageStart" | "pageEnd" | "lineStart" | "lineEnd">): { pages?: string; lines?: string } {
  const out: { pages?: string; lines?: string } = {};
  if (h.pageStart) out.pages = h.pageEnd && h.pageEnd > h.pageStart ? `${h.pageStart}–${h.pageEnd}` : String(h.pageStart);
  if (h.lineStart) out.lines = h.lineEnd && h.lineEnd > h.lineStart ? `${h.lineStart}–${h.lineEnd}` : String(h.lineStart);
  return out;
}

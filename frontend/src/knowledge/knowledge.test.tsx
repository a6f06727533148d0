import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { KbFile, KbHit, KnowledgeBase, Part, ReadyInfo } from "../api";
import { applyKbProgress, fileToBase64, hitPosition } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { groupParts, type ToolItem } from "../tools/model";
import { ToolCard } from "../tools/ToolCard";
import { KbAttach } from "../chat/KbAttach";
import { KnowledgeSection } from "./KnowledgeSection";
import { queryTerms } from "./Highlighted";

const kb = (id: string, name: string, more: Partial<KnowledgeBase> = {}): KnowledgeBase => ({ id, name, chunkSize: 512, chunkOverlap: 64, createdAt: 1, updatedAt: 1, ...more });
const file = (id: string, name: string, more: Partial<KbFile> = {}): KbFile => ({
  id, kbId: "k1", name, sha256: "x", size: 10, state: "done", chunks: 2, embedded: 2, createdAt: 1, updatedAt: 1, ...more,
});
const hit: KbHit = {
  kb: "manuals", kbId: "k1", fileId: "f1", file: "guide.pdf", chunkId: 7, index: 3, pageStart: 2, pageEnd: 3,
  snippet: "Aphids are controlled with soapy water", score: 0.032, via: ["keyword", "vector"],
};

/** A backend with one KB whose files and search the test scripts. */
function backend(files: KbFile[]) {
  const state = { kbs: [kb("k1", "manuals", { embedProvider: "local", embedModel: "bag" })], files };
  const t = new FakeTransport({
    ListKBs: () => state.kbs,
    ListKBFiles: () => state.files,
    ListKBFolders: () => [],
    CreateKB: (input: unknown) => {
      const k = kb("k2", (input as { name: string }).name);
      state.kbs = [...state.kbs, k];
      return k;
    },
    RetryKBFile: () => undefined,
    AddKBUpload: (_id: unknown, name: unknown) => file("f9", String(name), { state: "queued" }),
    SearchKB: () => [hit],
  });
  return { t, state };
}

describe("Knowledge section", () => {
  it("lists bases and files with their state, shows a failure's reason and retries it", async () => {
    const { t } = backend([file("f1", "guide.pdf"), file("f2", "broken.pdf", { state: "error", errorCode: "doc_corrupt", errorMessage: "bad xref" })]);
    renderWithClient(<KnowledgeSection />, { transport: t, ready: null });
    expect(await screen.findByTestId("kb-title")).toHaveTextContent("manuals");
    const rows = await screen.findAllByTestId("kb-file");
    expect(rows.map((r) => r.getAttribute("data-state"))).toEqual(["done", "error"]);
    expect(within(rows[0]!).getByTestId("kb-file-state")).toHaveTextContent("Ready");
    const err = within(rows[1]!).getByTestId("error-view");
    expect(err).toHaveAttribute("data-error-code", "doc_corrupt");
    fireEvent.click(within(rows[1]!).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(t.calls.find((c) => c.method === "RetryKBFile")?.args).toEqual(["f2"]));
  });

  it("folds progress events into the list and shows the embedding bar", async () => {
    const { t } = backend([file("f1", "guide.pdf", { state: "parsing", chunks: 0, embedded: 0 })]);
    renderWithClient(<KnowledgeSection />, { transport: t, ready: null });
    await screen.findByTestId("kb-file");
    t.emit({ topic: "kb:k1", seq: 1, type: "kb:file", data: { kbId: "k1", fileId: "f1", name: "guide.pdf", state: "embedding", chunks: 8, embedded: 3 } });
    const row = await screen.findByTestId("kb-file");
    await waitFor(() => expect(row).toHaveAttribute("data-state", "embedding"));
    expect(within(row).getByRole("progressbar")).toHaveAttribute("value", "3");
    expect(row).toHaveTextContent("3 of 8 embedded");
  });

  it("creates a base, uploads a picked file and runs a search showing source and page", async () => {
    const user = userEvent.setup();
    const { t } = backend([]);
    renderWithClient(<KnowledgeSection />, { transport: t, ready: null });
    await screen.findByTestId("kb-title");
    await user.type(screen.getByTestId("kb-create-name"), "recipes");
    await user.click(screen.getByTestId("kb-create-submit"));
    await waitFor(() => expect(t.calls.find((c) => c.method === "CreateKB")?.args).toEqual([{ name: "recipes", embedding: "" }]));
    await waitFor(() => expect(screen.getByTestId("kb-title")).toHaveTextContent("recipes"));

    await user.upload(screen.getByTestId("kb-file-input"), new File(["hello"], "notes.txt", { type: "text/plain" }));
    await waitFor(() => expect(t.calls.find((c) => c.method === "AddKBUpload")?.args).toEqual(["k2", "notes.txt", btoa("hello")]));

    await user.type(screen.getByTestId("kb-search-input"), "aphids water");
    await user.click(screen.getByTestId("kb-search-run"));
    const res = await screen.findByTestId("kb-hit");
    expect(res).toHaveTextContent("guide.pdf · p. 2–3");
    expect(res).toHaveTextContent("found by keywords + meaning");
    expect(Array.from(res.querySelectorAll("mark")).map((m) => m.textContent)).toEqual(["Aphids", "water"]);
  });
});

describe("re-embedding and synced folders", () => {
  it("shows a re-embed's progress and follows kb:reembed", async () => {
    const t = new FakeTransport({
      ListKBs: () => [kb("k1", "manuals", { embedProvider: "p", embedModel: "old", nextEmbedProvider: "p", nextEmbedModel: "new", reembed: { kbId: "k1", model: "p/new", done: 4, total: 10 } })],
      ListKBFiles: () => [],
      ListKBFolders: () => [],
    });
    renderWithClient(<KnowledgeSection />, { transport: t, ready: null });
    const box = await screen.findByTestId("kb-reembed");
    expect(box).toHaveTextContent("Re-embedding with p/new: 4 of 10 chunks");
    t.emit({ topic: "kb", seq: 5, type: "kb:reembed", data: { kbId: "k1", model: "p/new", done: 8, total: 10, errorCode: "kb_embedding_failed", errorMessage: "503" } });
    await waitFor(() => expect(box).toHaveTextContent("8 of 10 chunks"));
    expect(within(box).getByTestId("error-view")).toHaveAttribute("data-error-code", "kb_embedding_failed");
  });

  it("adds a folder by path with its ignore patterns and turns its sync off", async () => {
    const user = userEvent.setup();
    let folders = [] as Array<Record<string, unknown>>;
    const t = new FakeTransport({
      ListKBs: () => [kb("k1", "manuals")],
      ListKBFiles: () => [],
      ListKBFolders: () => folders,
      AddKBFolder: (_id: unknown, path: unknown, opt: unknown, sync: unknown) => {
        folders = [{ id: "d1", kbId: "k1", path, ignore: (opt as { ignore: string[] }).ignore, sync, createdAt: 1 }];
        return folders[0];
      },
      SetKBFolderSync: (id: unknown, sync: unknown) => ({ ...folders[0], id, sync }),
    });
    renderWithClient(<KnowledgeSection />, { transport: t, ready: null });
    await user.type(await screen.findByTestId("kb-folder-path"), "/home/me/notes");
    await user.type(screen.getByLabelText("Ignore patterns"), "*.log, build");
    await user.click(screen.getByTestId("kb-folder-add"));
    await waitFor(() => expect(t.calls.find((c) => c.method === "AddKBFolder")?.args).toEqual(["k1", "/home/me/notes", { ignore: ["*.log", "build"] }, true]));
    t.emit({ topic: "kb", seq: 1, type: "kb:changed", data: {} });
    const row = await screen.findByTestId("kb-folder");
    expect(row).toHaveTextContent("/home/me/notes");
    await user.click(within(row).getByTestId("kb-folder-sync"));
    await waitFor(() => expect(t.calls.find((c) => c.method === "SetKBFolderSync")?.args).toEqual(["d1", false]));
  });
});

describe("a large knowledge base", () => {
  it("renders only the rows of a 2,000-file list that are in view", async () => {
    // jsdom has no layout: the list's box is 480 px high, each row 36 px.
    vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockImplementation(function (this: HTMLElement) {
      return this.classList.contains("kb__files-scroll") ? 480 : 0;
    });
    vi.spyOn(HTMLElement.prototype, "clientWidth", "get").mockImplementation(function (this: HTMLElement) {
      return this.classList.contains("kb__files-scroll") ? 600 : 0;
    });
    vi.spyOn(HTMLElement.prototype, "offsetHeight", "get").mockImplementation(function (this: HTMLElement) {
      return this.dataset.index !== undefined ? 36 : 0;
    });
    const many = Array.from({ length: 2000 }, (_, i) => file(`f${i}`, `doc-${String(i).padStart(4, "0")}.md`));
    const { t } = backend(many);
    renderWithClient(<KnowledgeSection />, { transport: t, ready: null });
    await screen.findByTestId("kb-files-virtual");
    const rows = await screen.findAllByTestId("kb-file");
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThan(60);
    expect(rows[0]).toHaveAttribute("data-name", "doc-0000.md");
  });
});

describe("kb_search tool card", () => {
  const parts = (display: unknown): Part[] => [
    { id: "a", messageId: "m", index: 0, round: 0, type: "tool-call", state: "done", createdAt: 1, updatedAt: 1, tool: { callId: "c", name: "kb_search", namespace: "kb", arguments: '{"query":"aphids"}' } },
    { id: "b", messageId: "m", index: 1, round: 0, type: "tool-result", state: "done", createdAt: 1, updatedAt: 1, tool: { callId: "c", name: "kb_search", content: "[1] …", display, durationMs: 5 } },
  ];
  it("names the bases searched and each passage's file and page, its snippet expandable", () => {
    const item = groupParts(parts({ query: "aphids", kbs: ["manuals"], attached: true, hits: [hit] }))[0] as ToolItem;
    renderWithClient(<ToolCard item={item} live={false} />, { transport: new FakeTransport(), ready: null });
    fireEvent.click(within(screen.getByTestId("tool-card")).getByRole("button", { expanded: false }));
    expect(screen.getByTestId("kb-search-kbs")).toHaveTextContent("Searched manuals (attached to this conversation)");
    const h = screen.getByTestId("kb-card-hit");
    expect(h).toHaveTextContent("guide.pdf · p. 2–3");
    const details = h.querySelector("details")!;
    expect(details.open).toBe(false);
    fireEvent.click(h.querySelector("summary")!);
    expect(details.open).toBe(true);
    expect(h.querySelector("mark")?.textContent).toBe("Aphids");
  });
});

/** What Ready says in the desktop window. */
const desktopReady = () => Promise.resolve({ desktop: true } as unknown as ReadyInfo);

describe("a hit shown in its file", () => {
  const view = (onDisk: boolean) => ({
    file: file("f1", "guide.pdf", onDisk ? { source: "/home/me/guide.pdf" } : {}),
    onDisk,
    passages: [
      { chunkId: 6, index: 2, heading: "Garden", text: "Garden\n\nTomatoes need sun." },
      { chunkId: 7, index: 3, heading: "Pests", text: "Pests\n\nAphids are controlled with soapy water." },
      { chunkId: 8, index: 4, heading: "Pests", text: "Ladybirds eat them too." },
    ],
  });
  const parts = (display: unknown): Part[] => [
    { id: "a", messageId: "m", index: 0, round: 0, type: "tool-call", state: "done", createdAt: 1, updatedAt: 1, tool: { callId: "c", name: "kb_search", namespace: "kb", arguments: '{"query":"aphids"}' } },
    { id: "b", messageId: "m", index: 1, round: 0, type: "tool-result", state: "done", createdAt: 1, updatedAt: 1, tool: { callId: "c", name: "kb_search", content: "[1] …", display, durationMs: 5 } },
  ];

  it("opens from the card as a dialog with the file's text, the passage marked and scrolled to, and closes with Escape", async () => {
    const user = userEvent.setup();
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    const t = new FakeTransport({ GetKBFileView: () => view(true) });
    const item = groupParts(parts({ query: "aphids", kbs: ["manuals"], hits: [hit] }))[0] as ToolItem;
    renderWithClient(<ToolCard item={item} live={false} />, { transport: t, ready: null });
    fireEvent.click(within(screen.getByTestId("tool-card")).getByRole("button", { expanded: false }));
    const open = screen.getByTestId("kb-card-open");
    await user.click(open);
    const dialog = await screen.findByRole("dialog", { name: "guide.pdf" });
    expect(t.calls.find((c) => c.method === "GetKBFileView")?.args).toEqual(["f1"]);
    const marked = await within(dialog).findByTestId("kb-viewer-hit");
    expect(marked).toHaveTextContent("Aphids are controlled with soapy water.");
    expect(marked.querySelector("mark")?.textContent).toBe("Aphids");
    expect(within(dialog).getByTestId("kb-viewer-text")).toHaveTextContent(/Tomatoes need sun\..*Aphids.*Ladybirds eat them too\./);
    await waitFor(() => expect(scrolled).toHaveBeenCalled()); // the viewer scrolls once the text is laid out
    expect(within(dialog).queryByTestId("kb-viewer-open")).toBeNull(); // not the desktop window
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(open).toHaveFocus();
  });

  it("offers Open file for a file on disk in the desktop window, in Chinese too", async () => {
    const user = userEvent.setup();
    Element.prototype.scrollIntoView = vi.fn();
    const t = new FakeTransport({ GetKBFileView: () => view(true), OpenKBFile: () => undefined });
    const item = groupParts(parts({ query: "aphids", kbs: ["manuals"], hits: [hit] }))[0] as ToolItem;
    renderWithClient(<ToolCard item={item} live={false} />, { transport: t, lng: "zh-CN", ready: desktopReady() });
    fireEvent.click(within(screen.getByTestId("tool-card")).getByRole("button", { expanded: false }));
    await user.click(screen.getByRole("button", { name: "查看 guide.pdf 并标出此段落" }));
    const dialog = await screen.findByRole("dialog", { name: "guide.pdf" });
    await user.click(await within(dialog).findByRole("button", { name: "打开文件" }));
    await waitFor(() => expect(t.calls.find((c) => c.method === "OpenKBFile")?.args).toEqual(["f1"]));
  });

  it("has no Open file for pasted text, and opens from the Knowledge page's hits", async () => {
    const user = userEvent.setup();
    Element.prototype.scrollIntoView = vi.fn();
    const { t } = backend([file("f1", "guide.pdf")]);
    t.impl.GetKBFileView = () => view(false);
    renderWithClient(<KnowledgeSection />, { transport: t, ready: desktopReady() });
    await user.type(await screen.findByTestId("kb-search-input"), "aphids");
    await user.click(screen.getByTestId("kb-search-run"));
    await user.click(await screen.findByTestId("kb-hit-open"));
    const dialog = await screen.findByRole("dialog", { name: "guide.pdf" });
    await within(dialog).findByTestId("kb-viewer-hit");
    expect(within(dialog).queryByTestId("kb-viewer-open")).toBeNull();
  });
});

describe("choosing a folder", () => {
  it("fills the path from the desktop's folder dialog; a browser has no Choose button", async () => {
    const user = userEvent.setup();
    const t = new FakeTransport({ ListKBs: () => [kb("k1", "manuals")], ListKBFiles: () => [], ListKBFolders: () => [], ChooseFolder: () => "/home/me/papers" });
    renderWithClient(<KnowledgeSection />, { transport: t, ready: desktopReady() });
    await user.click(await screen.findByTestId("kb-folder-choose"));
    await waitFor(() => expect(screen.getByTestId("kb-folder-path")).toHaveValue("/home/me/papers"));
    expect(t.calls.find((c) => c.method === "ChooseFolder")?.args).toEqual(["Choose a folder to add"]);

    const b = new FakeTransport({ ListKBs: () => [kb("k1", "manuals")], ListKBFiles: () => [], ListKBFolders: () => [] });
    const other = renderWithClient(<KnowledgeSection />, { transport: b, ready: null });
    await within(other.container).findByTestId("kb-folder-path");
    expect(within(other.container).queryByTestId("kb-folder-choose")).toBeNull();
  });
});

describe("composer knowledge control", () => {
  it("attaches and detaches bases and follows kb:attached from other windows", async () => {
    const user = userEvent.setup();
    let attached: string[] = [];
    const t = new FakeTransport({
      ListKBs: () => [kb("k1", "manuals"), kb("k2", "recipes")],
      GetSessionKBs: () => attached,
      SetSessionKBs: (_s: unknown, ids: unknown) => (attached = ids as string[]),
    });
    renderWithClient(<KbAttach sessionId="s1" />, { transport: t, ready: null });
    const button = screen.getByTestId("kb-attach");
    await user.click(button);
    await user.click(await screen.findByTestId("kb-attach-recipes"));
    await waitFor(() => expect(button).toHaveTextContent("Knowledge (1)"));
    expect(t.calls.find((c) => c.method === "SetSessionKBs")?.args).toEqual(["s1", ["k2"]]);
    t.emit({ topic: "kb", seq: 2, type: "kb:attached", data: { sessionId: "s1", kbs: ["k1", "k2"] } });
    await waitFor(() => expect(button).toHaveTextContent("Knowledge (2)"));
    t.emit({ topic: "kb", seq: 3, type: "kb:attached", data: { sessionId: "other", kbs: [] } });
    expect(button).toHaveTextContent("Knowledge (2)");
  });
});

describe("kb helpers", () => {
  it.each([
    [{ pageStart: 2, pageEnd: 2 }, { pages: "2" }],
    [{ pageStart: 2, pageEnd: 4 }, { pages: "2–4" }],
    [{ lineStart: 5, lineEnd: 9 }, { lines: "5–9" }],
    [{}, {}],
  ])("hitPosition(%o)", (h, want) => expect(hitPosition(h)).toEqual(want));

  it("applies progress in place, drops removed files and asks to reload for new ones", () => {
    const list = [file("f1", "a"), file("f2", "b")];
    const p = { kbId: "k1", fileId: "f2", name: "b", state: "embedding" as const, chunks: 4, embedded: 1 };
    expect(applyKbProgress(list, p)?.[1]).toMatchObject({ state: "embedding", embedded: 1 });
    expect(applyKbProgress(list, { ...p, state: "removed" as never })?.map((f) => f.id)).toEqual(["f1"]);
    expect(applyKbProgress(list, { ...p, fileId: "new" })).toBeNull();
  });

  it("sends a file larger than a part in parts and returns the file the last one added", async () => {
    const parts: unknown[][] = [];
    const t = new FakeTransport({
      AddKBUploadPart: (...args: unknown[]) => {
        parts.push(args);
        return args[4] ? { uploadId: "u1", file: file("f1", "big.txt") } : { uploadId: "u1" };
      },
    });
    const { client } = renderWithClient(<div />, { transport: t, ready: null });
    const got = await client.kb.upload("k1", new Blob(["abcdefghij"]), "big.txt", 4);
    expect(got.id).toBe("f1");
    expect(parts.map((p) => [p[2], atob(p[3] as string), p[4]])).toEqual([
      ["", "abcd", false],
      ["u1", "efgh", false],
      ["u1", "ij", true],
    ]);
    expect(t.count("AddKBUpload")).toBe(0);
  });

  it("reads files as base64 and picks query terms (CJK single characters kept)", async () => {
    expect(await fileToBase64(new Blob(["héllo"]))).toBe(btoa(unescape(encodeURIComponent("héllo"))));
    expect(queryTerms("the Aphids, a 数据")).toEqual(["aphids", "the", "数据"]);
  });
});

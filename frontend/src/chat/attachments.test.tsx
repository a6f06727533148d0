import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Provider } from "../api";
import { App } from "../shell/App";
import { model } from "../test/fakeChat";
import { FakeBackend } from "../test/fakeTransport";
import { mockLayout } from "../test/layout";
import { renderWithClient } from "../test/render";
import { pastedName, typeLabel, uploadAttachment, UPLOAD_PART } from "./attachments";

const PROVIDER: Provider = {
  id: "prov1", name: "OpenAI", preset: "openai", baseUrl: "https://api.openai.com/v1", models: [model("gpt-4.1")],
  defaultModel: "gpt-4.1", needsKey: true, keySet: true, keyLast4: "abcd", dialect: {}, reasoningControls: {}, createdAt: 1, updatedAt: 1,
};

// The bytes of a 1×1 PNG: enough for a file the picker hands over.
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);

beforeEach(() => mockLayout());

function setup() {
  const backend = new FakeBackend();
  backend.chat.providers.push({ ...PROVIDER });
  const session = backend.chat.addSession({ title: "Files" });
  const r = renderWithClient(<App />, { transport: backend.window(), route: { name: "session", id: session.id } });
  return { backend, session, w: within(r.container) };
}

describe("attachments in the composer", () => {
  it("uploads picked files, sends them with the message and shows a chip that previews each", async () => {
    const user = userEvent.setup();
    const { backend, session, w } = setup();
    await w.findByTestId("composer-input");
    const notes = new File(["# Notes\nline two\n"], "notes.md", { type: "text/markdown" });
    const dot = new File([PNG], "dot.png", { type: "image/png" });
    await user.upload(w.getByTestId("attach-input"), [notes, dot]);
    await waitFor(() => expect(w.getAllByTestId("attach-draft").map((c) => c.dataset.state)).toEqual(["ready", "ready"]));

    await user.type(w.getByTestId("composer-input"), "What is in these?{Enter}");
    await waitFor(() => expect(backend.chat.sent).toHaveLength(1));
    const sent = backend.chat.sent[0]!;
    expect(sent).toMatchObject({ sessionId: session.id, text: "What is in these?" });
    expect(sent.attachments.map((a) => a.name)).toEqual(["notes.md", "dot.png"]);
    expect(sent.attachments.every((a) => a.id && !a.error)).toBe(true);
    expect(w.queryByTestId("attach-drafts")).toBeNull(); // the draft is cleared

    const chips = await w.findAllByTestId("attachment-chip");
    expect(chips[0]).toHaveTextContent("notes.md");
    expect(chips[0]).toHaveTextContent("MD");
    expect(chips[0]).toHaveTextContent("3 lines");
    expect(chips[1]).toHaveTextContent("dot.png");
    expect(chips[1]).toHaveTextContent("PNG");

    await user.click(chips[0]!);
    const dialog = await screen.findByRole("dialog", { name: "notes.md" });
    expect(await within(dialog).findByLabelText("Text of notes.md")).toHaveTextContent("# Notes line two");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());

    await user.click(chips[1]!);
    const img = await within(await screen.findByRole("dialog", { name: "dot.png" })).findByRole("img", { name: "dot.png" });
    expect(img.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
  });

  it("shows a refused file's error on its chip and sends the message without it, saying so", async () => {
    const user = userEvent.setup();
    const { backend, w } = setup();
    await w.findByTestId("composer-input");
    backend.chat.failNext.set("UploadAttachment", {
      code: "doc_encrypted", i18nKey: "errors.doc_encrypted", params: { name: "locked.pdf" }, message: "encrypted",
    });
    await user.upload(w.getByTestId("attach-input"), [new File(["%PDF-1.7"], "locked.pdf", { type: "application/pdf" })]);
    const draft = await w.findByTestId("attach-draft");
    await waitFor(() => expect(draft.dataset.state).toBe("error"));
    expect(draft).toHaveTextContent("locked.pdf is encrypted or password-protected.");
    expect(draft).toHaveTextContent("Not attached");

    await user.type(w.getByTestId("composer-input"), "here{Enter}");
    await waitFor(() => expect(backend.chat.sent).toHaveLength(1));
    expect(backend.chat.sent[0]!.attachments).toEqual([
      expect.objectContaining({ name: "locked.pdf", error: expect.objectContaining({ code: "doc_encrypted" }) }),
    ]);
    const chip = await w.findByTestId("attachment-chip");
    expect(chip).toHaveAttribute("data-state", "error");
    expect(chip).toHaveTextContent("locked.pdf is encrypted");
  });

  it("attaches a pasted screenshot and dropped files; pasted text stays text", async () => {
    const { backend, w } = setup();
    const input = (await w.findByTestId("composer-input")) as HTMLTextAreaElement;
    act(() => {
      fireEvent.paste(input, { clipboardData: { files: [], types: ["text/plain"], getData: () => "words" } });
    });
    expect(w.queryByTestId("attach-drafts")).toBeNull();
    const shot = new File([PNG], "image.png", { type: "image/png" });
    act(() => {
      fireEvent.paste(input, { clipboardData: { files: [shot], types: ["Files"] } });
    });
    const drafts = await w.findAllByTestId("attach-draft");
    expect(drafts[0]).toHaveTextContent(/pasted-\d{8}-\d{6}\.png/);

    const composer = input.closest(".composer")!;
    const dropped = new File(["a,b\n1,2\n"], "table.csv", { type: "text/csv" });
    act(() => {
      fireEvent.dragOver(composer, { dataTransfer: { types: ["Files"], files: [dropped] } });
    });
    expect(composer).toHaveAttribute("data-dragging");
    act(() => {
      fireEvent.drop(composer, { dataTransfer: { types: ["Files"], files: [dropped] } });
    });
    await waitFor(() => expect(w.getAllByTestId("attach-draft")).toHaveLength(2));
    expect(composer).not.toHaveAttribute("data-dragging");
    expect(w.getAllByTestId("attach-draft")[1]).toHaveTextContent("table.csv");
    await waitFor(() => expect(backend.chat.uploads.size).toBe(2));
  });

  it("removes a draft file before sending", async () => {
    const user = userEvent.setup();
    const { backend, w } = setup();
    await w.findByTestId("composer-input");
    await user.upload(w.getByTestId("attach-input"), [new File(["x"], "a.txt"), new File(["y"], "b.txt")]);
    await waitFor(() => expect(w.getAllByTestId("attach-draft").every((d) => d.dataset.state === "ready")).toBe(true));
    await user.click(w.getByRole("button", { name: "Remove a.txt" }));
    await user.click(w.getByTestId("composer-send")); // files alone may be sent
    await waitFor(() => expect(backend.chat.sent).toHaveLength(1));
    expect(backend.chat.sent[0]!.attachments.map((a) => a.name)).toEqual(["b.txt"]);
  });
});

describe("uploadAttachment", () => {
  it("sends a large file in parts of UPLOAD_PART, the last one marked", async () => {
    const calls: Array<{ id: string; bytes: number; last: boolean }> = [];
    const chat = {
      uploadAttachment: vi.fn(async (name: string, id: string, data: string, last: boolean) => {
        calls.push({ id, bytes: atob(data).length, last });
        return { uploadId: "u1", attachment: last ? { id: "x", name, size: 0 } : undefined };
      }),
    };
    const size = UPLOAD_PART * 2 + 10;
    const got = await uploadAttachment(chat, new Blob([new Uint8Array(size)]), "big.log");
    expect(got.name).toBe("big.log");
    expect(calls).toEqual([
      { id: "", bytes: UPLOAD_PART, last: false },
      { id: "u1", bytes: UPLOAD_PART, last: false },
      { id: "u1", bytes: 10, last: true },
    ]);
  });

  it("names pasted images by time and labels types", () => {
    expect(pastedName(new File([], "image.png", { type: "image/png" }), new Date(2026, 0, 2, 3, 4, 5))).toBe("pasted-20260102-030405.png");
    expect(pastedName(new File([], "shot.jpg", { type: "image/jpeg" }))).toBe("shot.jpg");
    expect(typeLabel({ name: "report.pdf", mime: "application/pdf" })).toBe("PDF");
    expect(typeLabel({ name: "README", mime: "text/markdown" })).toBe("MARKDOWN");
  });
});

import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { appErr, FakeBackend } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { DataSection } from "./DataSection";

function setup(lng: "en" | "zh-CN" = "en") {
  const backend = new FakeBackend();
  backend.desktop = true;
  const transport = backend.window();
  const saved: string[] = [];
  transport.impl.SaveFile = (name) => {
    saved.push(String(name));
    return `/home/u/${String(name)}`;
  };
  renderWithClient(<DataSection />, { transport, lng });
  return { transport, saved };
}

const REPORT = {
  source: "chatgpt",
  imported: 1,
  skipped: 1,
  items: [
    { title: "Fibonacci", status: "imported", sessionId: "s9", messages: 2 },
    { title: "Broken", status: "skipped", reason: "malformed", detail: "node gone", messages: 0 },
  ],
};

describe("Settings → General → Your data", () => {
  it("imports a file (its bytes as base64) and reports each conversation", async () => {
    const user = userEvent.setup();
    const { transport } = setup();
    transport.impl.ImportConversations = () => REPORT;
    await user.upload(screen.getByLabelText("Import conversations"), new File(["[{}]"], "conversations.json", { type: "application/json" }));
    const report = await screen.findByTestId("data-import-report");
    expect(report).toHaveTextContent("1 imported, 1 skipped (ChatGPT export).");
    const items = within(report).getAllByRole("listitem");
    expect(items[0]).toHaveTextContent("Imported “Fibonacci” (messages: 2).");
    expect(items[1]).toHaveTextContent("Skipped “Broken”: its structure cannot be read.");
    const call = transport.calls.find((c) => c.method === "ImportConversations")!;
    expect(call.args).toEqual(["conversations.json", btoa("[{}]")]);
  });

  it("says in the window's language why a file was refused", async () => {
    const user = userEvent.setup();
    const { transport } = setup("zh-CN");
    transport.impl.ImportConversations = () => {
      throw appErr("import_invalid", { file: "x.json", message: "it is not JSON" }, "import x.json: it is not JSON");
    };
    await user.upload(screen.getByLabelText("导入对话"), new File(["hello"], "x.json"));
    expect(await screen.findByRole("alert")).toHaveTextContent("x.json 不是 Cairn 能导入的导出文件");
    expect(screen.queryByTestId("data-import-report")).toBeNull();
  });

  it("backs up without keys, or with keys only once a passphrase is typed", async () => {
    const user = userEvent.setup();
    const { transport, saved } = setup();
    transport.impl.CreateBackup = () => ({ name: "cairn-backup.zip", mime: "application/zip", data: btoa("PK") });
    await user.click(screen.getByTestId("data-backup"));
    await waitFor(() => expect(saved).toEqual(["cairn-backup.zip"]));
    expect(await screen.findByTestId("data-saved")).toHaveTextContent("Saved to /home/u/cairn-backup.zip.");
    expect(transport.calls.find((c) => c.method === "CreateBackup")!.args).toEqual([{ withKeys: false }]);

    await user.click(screen.getByLabelText("Include keys (encrypted with a passphrase)"));
    expect(screen.getByTestId("data-backup")).toBeDisabled();
    await user.type(screen.getByLabelText("Passphrase"), "correct horse");
    expect(screen.getByTestId("data-backup")).toBeEnabled();
    await user.click(screen.getByTestId("data-backup"));
    await waitFor(() => expect(saved).toHaveLength(2));
    expect(transport.calls.filter((c) => c.method === "CreateBackup")[1]!.args).toEqual([{ withKeys: true, passphrase: "correct horse" }]);
    expect(screen.getByLabelText("Passphrase")).toHaveValue("");
  });

  it("exports everything as one zip and explains how to restore", async () => {
    const user = userEvent.setup();
    const { transport, saved } = setup();
    transport.impl.ExportAllSessions = () => ({ name: "all.zip", mime: "application/zip", data: btoa("PK") });
    await user.click(screen.getByTestId("data-export-all"));
    await waitFor(() => expect(saved).toEqual(["all.zip"]));
    expect(screen.getByTestId("data-restore-help")).toHaveTextContent("quit Cairn");
  });

  it("stages a restore for the next start and cancels it; a bad backup stages nothing", async () => {
    const user = userEvent.setup();
    const { transport } = setup();
    let pending = false;
    transport.impl.GetRestoreState = () => ({ pending });
    transport.impl.CancelRestore = () => {
      pending = false;
    };
    transport.impl.StageRestore = (name) => {
      if (name === "bad.zip") throw appErr("backup_corrupt", { file: "bad.zip", message: "zip: not a valid zip file" }, "backup bad.zip");
      pending = true;
      return { format: "cairn.backup", version: 1, schema: 15, createdAt: 0, withKeys: false, files: 3 };
    };
    await user.upload(screen.getByLabelText("Restore"), new File(["x"], "bad.zip"));
    expect(await screen.findByRole("alert")).toHaveTextContent("The backup bad.zip cannot be read: zip: not a valid zip file. Nothing was changed.");
    expect(screen.queryByTestId("data-restore-pending")).toBeNull();
    await user.upload(screen.getByLabelText("Restore"), new File(["PK"], "good.zip"));
    expect(await screen.findByTestId("data-restore-pending")).toHaveTextContent("A backup will be restored the next time Cairn starts.");
    expect(transport.calls.filter((c) => c.method === "StageRestore")[1]!.args).toEqual(["good.zip", btoa("PK")]);
    await user.click(screen.getByTestId("data-restore-cancel"));
    await waitFor(() => expect(screen.queryByTestId("data-restore-pending")).toBeNull());
    expect(pending).toBe(false);
  });
});

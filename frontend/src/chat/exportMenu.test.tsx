import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { ExportMenu } from "./ExportMenu";

function setup(lng: "en" | "zh-CN" = "en") {
  const backend = new FakeBackend();
  backend.desktop = true;
  const transport = backend.window();
  const saved: { name: string; data: string }[] = [];
  transport.impl.ExportSession = (id, format, opt) => ({
    name: `c-${String(id)}.${String(format)}`,
    mime: "text/plain",
    data: btoa(JSON.stringify(opt)),
  });
  transport.impl.SaveFile = (name, data) => {
    saved.push({ name: String(name), data: String(data) });
    return `/home/u/${String(name)}`;
  };
  renderWithClient(<ExportMenu sessionId="s1" title="Trip" />, { transport, lng });
  return { transport, saved };
}

describe("ExportMenu", () => {
  it.each([
    ["session-export-md", "md", false],
    ["session-export-mdReasoning", "md", true],
    ["session-export-json", "json", false],
  ] as const)("%s exports as %s (reasoning %s) and saves the file", async (item, format, reasoning) => {
    const user = userEvent.setup();
    const { transport, saved } = setup();
    await user.click(screen.getByRole("button", { name: "Export “Trip”" }));
    expect(screen.getByRole("menu")).toBeInTheDocument();
    await user.click(screen.getByTestId(item));
    await waitFor(() => expect(saved).toHaveLength(1));
    const call = transport.calls.find((c) => c.method === "ExportSession")!;
    expect(call.args.slice(0, 2)).toEqual(["s1", format]);
    expect(call.args[2]).toMatchObject({ reasoning, labels: { user: "You", assistant: "Assistant", tool: "Tool" } });
    expect(saved[0]!.name).toBe(`c-s1.${format}`);
    expect(screen.queryByRole("menu")).toBeNull();
    expect(screen.getByTestId("session-export")).toHaveFocus();
  });

  it("writes Markdown with the window's language and closes on Escape", async () => {
    const user = userEvent.setup();
    const { transport } = setup("zh-CN");
    await user.click(screen.getByRole("button", { name: "导出“Trip”" }));
    expect(screen.getByRole("menuitem", { name: "Markdown 格式" })).toHaveFocus();
    await user.keyboard("{ArrowDown}");
    expect(screen.getByRole("menuitem", { name: "Markdown（含推理过程）" })).toHaveFocus();
    await user.keyboard("{ArrowUp}{ArrowUp}");
    expect(screen.getByRole("menuitem", { name: "JSON（完整）" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("menu")).toBeNull();
    expect(screen.getByTestId("session-export")).toHaveFocus();
    await user.click(screen.getByTestId("session-export"));
    await user.click(screen.getByTestId("session-export-md"));
    await waitFor(() => expect(transport.calls.some((c) => c.method === "ExportSession")).toBe(true));
    const call = transport.calls.find((c) => c.method === "ExportSession")!;
    expect(call.args[2]).toMatchObject({ labels: { user: "你", assistant: "助手", reasoning: "推理过程" } });
  });

  it("shows a failed export's error", async () => {
    const user = userEvent.setup();
    const { transport } = setup();
    transport.impl.ExportSession = () => {
      throw { code: "session_not_found", i18nKey: "errors.session_not_found", params: { id: "s1" }, message: "no session s1" };
    };
    await user.click(screen.getByTestId("session-export"));
    await user.click(screen.getByTestId("session-export-json"));
    expect(await screen.findByRole("alert")).toBeInTheDocument();
  });
});

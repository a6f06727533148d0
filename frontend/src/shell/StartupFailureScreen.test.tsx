import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { I18nextProvider } from "react-i18next";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StartupFailureInfo } from "../api";
import type { Language } from "../i18n";
import { testI18n } from "../test/i18n";
import { StartupFailureScreen } from "./StartupFailureScreen";

const tooNew: StartupFailureInfo = {
  error: {
    code: "db_too_new",
    i18nKey: "errors.db_too_new",
    params: { path: "/home/u/.config/cairn/cairn.db", version: 9, supported: 6 },
    message: "database schema 9 is newer than 6",
  },
  dataDir: "/home/u/.config/cairn",
  version: "v1.2.3",
  language: "en",
};

// As in the window: no client, no router above it (the backend is not there).
const show = (info: StartupFailureInfo, onQuit = vi.fn(), lng: Language = "en") => {
  render(
    <I18nextProvider i18n={testI18n(lng)}>
      <StartupFailureScreen info={info} onQuit={onQuit} />
    </I18nextProvider>,
  );
  return onQuit;
};

const execCommand = document.execCommand;
afterEach(() => {
  Reflect.deleteProperty(navigator, "clipboard");
  document.execCommand = execCommand;
});

describe("StartupFailureScreen", () => {
  it("says what went wrong, localized with its parameters, where the data is, and how to get out", () => {
    show(tooNew);
    const screenEl = screen.getByTestId("startup-failure");
    expect(screenEl).toHaveAttribute("data-error-code", "db_too_new");
    expect(screen.getByRole("heading", { name: "Cairn could not start" })).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent(
      "The database at /home/u/.config/cairn/cairn.db was written by a newer Cairn (schema 9, this version knows 6).",
    );
    expect(screenEl).toHaveTextContent("Data directory: /home/u/.config/cairn");
    expect(screenEl).toHaveTextContent("cairn --data-dir PATH");
    expect(screenEl).toHaveAccessibleName("Cairn could not start");
  });

  it("offers no settings, even for an error that names a section: no backend is behind this window", () => {
    show({ ...tooNew, error: { ...tooNew.error, action: { kind: "open-settings", target: "general" } } });
    expect(screen.getByRole("alert")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /settings/i })).toBeNull();
    expect(screen.getAllByRole("button").map((b) => b.textContent)).toEqual(["Copy details", "Quit"]);
  });

  it("puts the focus on Quit, described by the error, and Quit quits", () => {
    const onQuit = show(tooNew);
    const quit = screen.getByRole("button", { name: "Quit" });
    expect(quit).toHaveFocus();
    expect(quit).toHaveAccessibleDescription(/written by a newer Cairn .*cairn --data-dir PATH/);
    fireEvent.click(quit);
    expect(onQuit).toHaveBeenCalledTimes(1);
  });

  it("copies the details for a bug report", async () => {
    const writeText = vi.fn(async (_text: string) => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    show(tooNew);
    fireEvent.click(screen.getByRole("button", { name: "Copy details" }));
    await waitFor(() => expect(screen.getByRole("status")).toHaveTextContent("The details are on the clipboard."));
    const text = writeText.mock.calls[0]?.[0] ?? "";
    expect(text).toContain("Cairn could not start");
    expect(text).toContain("db_too_new: database schema 9 is newer than 6");
    expect(text).toContain("Data directory: /home/u/.config/cairn");
    expect(text).toContain("Version: Cairn v1.2.3");
  });

  it("says so when the details could not be copied", async () => {
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: async () => Promise.reject(new Error("denied")) },
      configurable: true,
    });
    document.execCommand = () => false;
    show(tooNew);
    fireEvent.click(screen.getByRole("button", { name: "Copy details" }));
    await waitFor(() => expect(screen.getByRole("status")).toHaveTextContent("The details could not be copied."));
  });

  it("speaks Chinese in zh-CN", () => {
    show(tooNew, vi.fn(), "zh-CN");
    expect(screen.getByRole("heading", { name: "Cairn 无法启动" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "退出" })).toHaveFocus();
    expect(screen.getByTestId("startup-failure")).toHaveTextContent("数据目录：/home/u/.config/cairn");
  });

  it("shows an unknown error by its raw message, and copies no empty data directory", async () => {
    const writeText = vi.fn(async (_text: string) => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    show({ error: { code: "weird", i18nKey: "errors.nope", message: "disk on fire" }, dataDir: "", version: "", language: "" });
    expect(screen.getByRole("alert")).toHaveTextContent("disk on fire");
    expect(screen.getByTestId("startup-failure")).not.toHaveTextContent("Data directory");
    fireEvent.click(screen.getByRole("button", { name: "Copy details" }));
    await waitFor(() => expect(writeText).toHaveBeenCalled());
    expect(writeText.mock.calls[0]?.[0]).toContain("weird: disk on fire");
    expect(writeText.mock.calls[0]?.[0]).not.toContain("Data directory");
  });
});

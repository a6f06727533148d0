import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StartupFailureApi, StartupFailureInfo } from "./api";
import { mountStartupFailure } from "./boot";

const info = (language: string): StartupFailureInfo => ({
  error: { code: "data_dir_failed", i18nKey: "errors.data_dir_failed", params: { path: "/x" }, message: "mkdir /x: not a directory" },
  dataDir: "/x",
  version: "v1",
  language,
});

const fakeFailure = (details: () => Promise<StartupFailureInfo>, quit: () => Promise<void> = async () => {}) => ({
  details: vi.fn(details),
  shown: vi.fn(async (_lng: string) => {}),
  quit: vi.fn(quit),
}) satisfies StartupFailureApi;

afterEach(() => {
  document.body.innerHTML = "";
  Reflect.deleteProperty(window, "runtime");
});

describe("mountStartupFailure", () => {
  it("shows the failure in the backend's language, then says it is shown", async () => {
    const el = document.body.appendChild(document.createElement("div"));
    const failure = fakeFailure(async () => info("zh-CN"));
    await mountStartupFailure(el, failure);
    expect(screen.getByRole("heading", { name: "Cairn 无法启动" })).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("无法使用数据目录 /x。");
    expect(document.documentElement.lang).toBe("zh-CN");
    expect(failure.shown).toHaveBeenCalledWith("zh-CN");
  });

  it("still shows a failure when Details itself fails, and quits through the runtime when Quit fails", async () => {
    const runtimeQuit = vi.fn();
    Object.defineProperty(window, "runtime", { value: { Quit: runtimeQuit, EventsOn: () => {} }, configurable: true });
    const el = document.body.appendChild(document.createElement("div"));
    const failure = fakeFailure(
      async () => Promise.reject(new Error("bridge broken")),
      async () => Promise.reject(new Error("window gone")),
    );
    await mountStartupFailure(el, failure);
    expect(screen.getByRole("alert")).toHaveTextContent("bridge broken");
    fireEvent.click(screen.getByRole("button", { name: /Quit|退出/ }));
    await waitFor(() => expect(runtimeQuit).toHaveBeenCalledTimes(1));
    expect(failure.quit).toHaveBeenCalledTimes(1);
  });
});

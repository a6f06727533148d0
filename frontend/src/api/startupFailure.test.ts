import { describe, expect, it, vi } from "vitest";
import { findStartupFailure } from "./startupFailure";

const windowWith = (main: unknown) => ({ go: { main } }) as unknown as Window;

describe("findStartupFailure", () => {
  it("is null in a normal window (App bound) and in a browser (nothing bound)", () => {
    expect(findStartupFailure(windowWith({ App: {} }))).toBeNull();
    expect(findStartupFailure({} as Window)).toBeNull();
  });

  it("calls the bound StartupFailure and normalizes what Details answers", async () => {
    const bound = {
      Details: vi.fn(async () => ({
        error: { code: "data_dir_failed", i18nKey: "errors.data_dir_failed", params: { path: "/x" }, message: "mkdir /x: not a directory" },
        dataDir: "/x",
        version: "v1",
        language: "zh-CN",
      })),
      Shown: vi.fn(async () => undefined),
      Quit: vi.fn(async () => undefined),
    };
    const f = findStartupFailure(windowWith({ StartupFailure: bound }));
    expect(f).not.toBeNull();
    const info = await f!.details();
    expect(info.error.code).toBe("data_dir_failed");
    expect(info.error.params).toEqual({ path: "/x" });
    expect(info.dataDir).toBe("/x");
    expect(info.language).toBe("zh-CN");
    await f!.shown("zh-CN");
    await f!.quit();
    expect(bound.Shown).toHaveBeenCalledWith("zh-CN");
    expect(bound.Quit).toHaveBeenCalledTimes(1);
  });

  it("turns a malformed answer and a failed call into readable errors", async () => {
    const f = findStartupFailure(
      windowWith({ StartupFailure: { Details: async () => ({ dataDir: 7 }), Quit: async () => Promise.reject("window gone") } }),
    )!;
    const info = await f.details();
    expect(info.dataDir).toBe("");
    expect(info.language).toBe("");
    expect(info.error.message).toBe("start-up failed");
    await expect(f.quit()).rejects.toMatchObject({ message: "window gone" });
    await expect(f.shown("en")).rejects.toMatchObject({ message: expect.stringContaining("Shown is not bound") });
  });
});

import { act, renderHook } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { useAction } from "./useAction";

describe("useAction", () => {
  it("is busy while it runs, keeps the error it failed with, ignores a second run meanwhile and retries with the same arguments", async () => {
    const calls: string[] = [];
    let fail = true;
    let release: () => void = () => {};
    const { result } = renderHook(() =>
      useAction(async (name: string) => {
        calls.push(name);
        await new Promise<void>((r) => (release = r));
        if (fail) throw { code: "model_unreachable", i18nKey: "errors.model_unreachable", message: "down" };
        return `saved ${name}`;
      }),
    );
    let first: Promise<string | undefined> = Promise.resolve(undefined);
    act(() => {
      first = result.current.run("a");
    });
    expect(result.current.busy).toBe(true);
    await act(async () => {
      expect(await result.current.run("b")).toBeUndefined(); // a double click
    });
    await act(async () => {
      release();
      expect(await first).toBeUndefined();
    });
    expect(calls).toEqual(["a"]);
    expect(result.current.busy).toBe(false);
    expect(result.current.error?.code).toBe("model_unreachable");

    fail = false;
    let again: Promise<string | undefined> = Promise.resolve(undefined);
    act(() => {
      again = result.current.retry();
    });
    expect(result.current.error).toBeNull();
    await act(async () => {
      release();
      expect(await again).toBe("saved a");
    });
    expect(calls).toEqual(["a", "a"]);
  });
});

import { describe, expect, it, vi } from "vitest";
import { onceMarkedReady } from "./readyMark";

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("onceMarkedReady", () => {
  it("waits for data-ready=1, then runs once", async () => {
    const body = document.createElement("body");
    const fn = vi.fn();
    onceMarkedReady(body, fn);
    body.dataset.other = "x";
    body.dataset.ready = "0";
    await flush();
    expect(fn).not.toHaveBeenCalled();
    body.dataset.ready = "1";
    await flush();
    expect(fn).toHaveBeenCalledTimes(1);
    delete body.dataset.ready;
    body.dataset.ready = "1";
    await flush();
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("runs at once when the page is already marked", () => {
    const body = document.createElement("body");
    body.dataset.ready = "1";
    const fn = vi.fn();
    onceMarkedReady(body, fn);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

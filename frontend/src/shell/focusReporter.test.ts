import { afterEach, describe, expect, it, vi } from "vitest";
import { FOCUS_REPEAT_MS, reportFocus } from "./focusReporter";

describe("reportFocus", () => {
  afterEach(() => vi.useRealTimers());

  it("reports focus changes once each and repeats while focused", () => {
    vi.useFakeTimers();
    const calls: Array<[string, boolean]> = [];
    const system = { windowFocus: (id: string, f: boolean) => (calls.push([id, f]), Promise.resolve()) };
    let focused = true;
    const hasFocus = vi.spyOn(document, "hasFocus").mockImplementation(() => focused);
    const stop = reportFocus(system, "w1");
    expect(calls).toEqual([["w1", true]]);

    window.dispatchEvent(new Event("focus")); // no change: nothing sent
    expect(calls).toHaveLength(1);

    focused = false;
    window.dispatchEvent(new Event("blur"));
    expect(calls).toEqual([["w1", true], ["w1", false]]);

    vi.advanceTimersByTime(FOCUS_REPEAT_MS); // unfocused: no repeat
    expect(calls).toHaveLength(2);

    focused = true;
    window.dispatchEvent(new Event("focus"));
    vi.advanceTimersByTime(FOCUS_REPEAT_MS);
    expect(calls).toEqual([["w1", true], ["w1", false], ["w1", true], ["w1", true]]);

    stop();
    focused = false;
    window.dispatchEvent(new Event("blur"));
    expect(calls).toHaveLength(4);
    hasFocus.mockRestore();
  });
});

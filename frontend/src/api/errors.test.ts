import { describe, expect, it } from "vitest";
import { isAppError, toAppError } from "./errors";

describe("toAppError", () => {
  it.each([
    ["an apperr object", { code: "not_found", i18nKey: "errors.not_found", message: "m" }, "not_found", "m"],
    ["an Error", new Error("boom"), "unknown", "boom"],
    ["a string", "plain text", "unknown", "plain text"],
    ["a JSON apperr string", JSON.stringify({ code: "canceled", i18nKey: "errors.canceled", message: "c" }), "canceled", "c"],
    ["an envelope string", JSON.stringify({ error: { code: "internal", i18nKey: "errors.internal", message: "i" } }), "internal", "i"],
    ["an object with a message", { message: "odd" }, "unknown", "odd"],
    ["undefined", undefined, "unknown", "undefined"],
  ])("normalises %s", (_name, input, code, message) => {
    const e = toAppError(input);
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
    expect(isAppError(e)).toBe(true);
  });

  it("keeps the raw text of unknown errors as the errors.unknown parameter", () => {
    expect(toAppError("x")).toEqual({ code: "unknown", i18nKey: "errors.unknown", params: { message: "x" }, message: "x" });
  });
});

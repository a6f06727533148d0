import type { AppError } from "./types";

/** True for anything shaped like the backend's apperr object. */
export function isAppError(v: unknown): v is AppError {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.code === "string" && typeof o.i18nKey === "string";
}

/**
 * Turns whatever a call rejected with (apperr object, JSON string, Error, plain string)
 * into an AppError. Unknown errors become `errors.unknown` carrying their raw text, so the
 * UI can always show something meaningful.
 */
export function toAppError(v: unknown): AppError {
  if (isAppError(v)) {
    return {
      code: v.code,
      i18nKey: v.i18nKey,
      params: v.params ?? undefined,
      message: typeof v.message === "string" ? v.message : "",
      action: v.action ?? undefined,
    };
  }
  if (typeof v === "string") {
    const trimmed = v.trim();
    if (trimmed.startsWith("{")) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (isAppError(parsed)) return toAppError(parsed);
        if (isAppError((parsed as { error?: unknown }).error)) {
          return toAppError((parsed as { error: unknown }).error);
        }
      } catch {
        // not JSON: fall through to the raw text
      }
    }
    return unknownError(v);
  }
  if (v instanceof Error) return unknownError(v.message || v.name);
  if (typeof v === "object" && v !== null && typeof (v as { message?: unknown }).message === "string") {
    return unknownError((v as { message: string }).message);
  }
  return unknownError(String(v));
}

/** An error the backend did not describe: shown through errors.unknown with its raw text. */
export function unknownError(message: string, code = "unknown"): AppError {
  return { code, i18nKey: "errors.unknown", params: { message }, message };
}

/** Errors made by the frontend itself when the backend cannot be reached. */
export function transportError(message: string): AppError {
  return {
    code: "transport_unreachable",
    i18nKey: "common.transport.unreachable",
    params: { message },
    message,
    action: { kind: "retry" },
  };
}

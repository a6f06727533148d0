import { useTranslation } from "react-i18next";

/** What an approval request says about why it asks (backend/approval.Request). */
export interface AskReason {
  askReason?: string;
  askReasonCode?: string;
  askReasonParams?: Record<string, string>;
}

/** backend/permission/evaluate.go's texts of a hook that gave no reason of its own. */
const HOOK_DEFAULTS = new Set(["a hook allowed it", "a hook asks for approval"]);

/**
 * Why a call asks, in the window's language: chat:approval.reasons.<code> with its
 * params; the backend's English askReason when the code is empty or unknown (requests
 * from before reason codes). A hook's own words (a hook_* reason that is not the default
 * text) are kept after the localized text.
 */
export function useApprovalReason(): (r: AskReason) => string {
  const { t, i18n } = useTranslation("chat");
  return (r) => {
    const code = r.askReasonCode ?? "";
    const key = `approval.reasons.${code}`;
    if (!code || !i18n.exists(key, { ns: "chat" })) return r.askReason ?? "";
    const params = r.askReasonParams ?? {};
    const text = t(key, params);
    const own = r.askReason?.trim();
    if (own && code.startsWith("hook_") && !HOOK_DEFAULTS.has(own.toLowerCase())) {
      return `${text} ${own}`;
    }
    return text;
  };
}

import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, type AppError, type ApprovalRequest } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import "./approvalResume.css";
import { windowId } from "../shell/windowId";
import type { SessionApprovals } from "./sessionApprovals";

/**
 * The line a tool card shows when its approval request was interrupted by a quit or crash
 * (APPR-1): "Interrupted — Resume". Resume asks again (a new dialog); nothing runs unasked.
 * Once resumed (here or in another window) it says so.
 */
export function ApprovalResume({ request, status, approvals }: { request: { id: string; tool?: string } & Partial<ApprovalRequest>; status: string; approvals: SessionApprovals }) {
  const { t } = useTranslation("chat");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<AppError | null>(null);

  if (status === "resumed") {
    return (
      <div className="tool-card__resume tool-card__resume--done" data-testid="approval-resumed">
        <Icon name="refresh" size={14} />
        <span>{!request.window || request.window === windowId() ? t("tools.resumed") : t("tools.resumedElsewhere")}</span>
      </div>
    );
  }

  const resume = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await approvals.resume(request.id);
    } catch (e) {
      setError(toAppError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="tool-card__resume" data-testid="approval-interrupted" role="group" aria-label={t("tools.interrupted")}>
      <Icon name="alert" size={14} />
      <span className="tool-card__resume-text">
        <strong>{t("tools.interrupted")}</strong> — {t("tools.interruptedHelp")}
      </span>
      <button type="button" className="btn btn--small btn--primary" onClick={() => void resume()} aria-disabled={busy || undefined} data-testid="approval-resume">
        {busy && <span className="spinner" aria-hidden="true" />}
        {t("tools.resume")}
      </button>
      {error && <ErrorView error={error} compact />}
    </div>
  );
}

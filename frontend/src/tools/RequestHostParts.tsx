import { useTranslation } from "react-i18next";
import type { AppError } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useRouter } from "../shell/router";
import { visibleString } from "./visible";

/**
 * The line under an approval's or a server form's question: which conversation asks, how
 * many wait, and a way there when this window shows another. Nothing when there is neither
 * a conversation nor a queue (a server form asked outside any chat).
 */
export function RequestContext({ testId, sessionId, title, count }: { testId: string; sessionId?: string; title?: string; count: number }) {
  const { t } = useTranslation("chat");
  const { route, navigate } = useRouter();
  const current = route.name === "session" ? route.id : null;
  if (!sessionId && count <= 1) return null;
  return (
    <p className="approval__context" data-testid={testId}>
      {sessionId && <span>{t("approval.inSession", { title: title ? visibleString(title) : t("session.untitled") })}</span>}
      {count > 1 && <span className="badge">{t("approval.queue", { count })}</span>}
      {sessionId && sessionId !== current && (
        <button type="button" className="link-btn" onClick={() => navigate({ name: "session", id: sessionId })}>
          {t("approval.openSession")}
        </button>
      )}
    </p>
  );
}

/** The toast that says why this window's answer did not count, with a close button. */
export function NoticeToast({ testId, notice, onClose }: { testId: string; notice: AppError | null; onClose: () => void }) {
  const { t } = useTranslation("chat");
  if (!notice) return null;
  return (
    <div className="toast" role="status" data-testid={testId}>
      <ErrorView error={notice} compact />
      <button type="button" className="icon-btn icon-btn--small" aria-label={t("common:actions.close")} onClick={onClose}>
        <Icon name="x" size={14} />
      </button>
    </div>
  );
}

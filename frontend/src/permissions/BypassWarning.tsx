import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Icon } from "../components/Icon";
import "./bypass.css";

/**
 * The persistent warning of bypassPermissions (APPR-2): nothing asks. Shown in Settings
 * while it is the default and in a session's header while it is in force there.
 */
export function BypassWarning({ scope, testId = "bypass-warning", action }: { scope: "default" | "session"; testId?: string; action?: ReactNode }) {
  const { t } = useTranslation("settings");
  return (
    <div className="note note--danger bypass-warning" role="note" data-testid={testId}>
      <Icon name="alert" />
      <div className="bypass-warning__body">
        <p className="note__title">{t("permissions.bypass.title")}</p>
        <p className="note__body">{scope === "default" ? t("permissions.bypass.default") : t("permissions.bypass.session")}</p>
      </div>
      {action}
    </div>
  );
}

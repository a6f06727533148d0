import { useTranslation } from "react-i18next";
import type { PermissionRule } from "../api";
import { behaviorBadge } from "./model";

/** A rule in one line: behavior, then each condition it sets. */
export function RuleSummary({ rule, sessionTitle }: { rule: PermissionRule; sessionTitle?: (id: string) => string | undefined }) {
  const { t } = useTranslation("settings");
  const conds: Array<[string, string]> = [];
  if (rule.tool) conds.push(["tool", rule.tool]);
  if (rule.path) conds.push(["path", rule.path]);
  if (rule.command) conds.push(["command", rule.command]);
  return (
    <span className="rule-summary">
      <span className={`badge ${behaviorBadge(rule.behavior)}`} data-testid="rule-behavior">
        {t(`permissions.behavior.${rule.behavior}`, { defaultValue: rule.behavior })}
      </span>
      {conds.map(([k, v]) => (
        <span key={k} className="rule-summary__cond">
          <span className="rule-summary__key">{t(`permissions.rule.${k}`)}</span>
          <code>{v}</code>
        </span>
      ))}
      <span className="rule-summary__scope muted">
        {rule.sessionId
          ? t("permissions.rule.scopeSession", { title: sessionTitle?.(rule.sessionId) || rule.sessionId })
          : t("permissions.rule.scopeAll")}
      </span>
    </span>
  );
}

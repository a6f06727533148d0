import { useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useSessionList, useTopic, type AppError, type PermissionRule } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { dateTime, sortRules } from "./model";
import { RuleForm } from "./RuleForm";
import { RuleSummary } from "./RuleSummary";

/** The stored allow / deny / ask rules: add, edit, delete (topic approvals, permission:rules). */
export function RulesGroup() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const { data, error } = useTopic(client.stores.permissionRules);
  const sessions = useSessionList().data?.sessions;
  const [editing, setEditing] = useState<string | null>(null); // "new" or a rule id
  const [removing, setRemoving] = useState<PermissionRule | null>(null);
  const [removeError, setRemoveError] = useState<AppError | null>(null);
  const headingId = useId();
  const rules = useMemo(() => sortRules(data?.rules ?? []), [data]);
  const titleOf = (id: string) => sessions?.find((s) => s.id === id)?.title || undefined;

  const remove = async (r: PermissionRule) => {
    setRemoving(null);
    setRemoveError(null);
    try {
      await client.permissions.deleteRule(r.id);
      if (editing === r.id) setEditing(null);
    } catch (e) {
      setRemoveError(toAppError(e));
    }
  };

  return (
    <section className="group permissions-rules" aria-labelledby={headingId} data-testid="permission-rules">
      <div className="group__header">
        <h3 id={headingId} className="group__title">
          {t("permissions.rules.title")}
          {data && <span className="badge perm__count">{rules.length}</span>}
        </h3>
        <button
          type="button"
          className="btn btn--small btn--primary"
          onClick={() => setEditing((e) => (e === "new" ? null : "new"))}
          aria-expanded={editing === "new"}
          data-testid="permission-rule-add"
        >
          <Icon name="plus" size={14} />
          {t("permissions.rules.add")}
        </button>
      </div>
      <p className="group__description">{t("permissions.rules.intro")}</p>

      {error && !data && <ErrorView error={error} onRetry={() => void client.stores.permissionRules.reload()} />}
      {removeError && <ErrorView error={removeError} compact />}

      {editing === "new" && (
        <div className="perm-card perm-card--editing">
          <h4 className="perm-card__title">{t("permissions.rules.newTitle")}</h4>
          <RuleForm onDone={() => setEditing(null)} />
        </div>
      )}

      {data && rules.length === 0 && editing !== "new" && (
        <div className="perm-empty muted" data-testid="permission-rules-empty">
          {t("permissions.rules.empty")}
        </div>
      )}

      {rules.length > 0 && (
        <ul className="perm-rules">
          {rules.map((r) => (
            <li key={r.id} className="perm-card" data-testid="permission-rule-item" data-rule-id={r.id} data-behavior={r.behavior}>
              {editing === r.id ? (
                <>
                  <h4 className="perm-card__title">{t("permissions.rules.editTitle")}</h4>
                  <RuleForm rule={r} onDone={() => setEditing(null)} />
                </>
              ) : (
                <div className="perm-rule">
                  <div className="perm-rule__main">
                    <RuleSummary rule={r} sessionTitle={titleOf} />
                    <p className="perm-rule__meta muted">
                      {[
                        t(`permissions.source.${r.source}`, { defaultValue: r.source ?? "" }),
                        r.fingerprint ? t("permissions.rules.fingerprint") : "",
                        r.updatedAt ? t("permissions.rules.updated", { when: dateTime(r.updatedAt) }) : "",
                      ]
                        .filter(Boolean)
                        .join(" · ")}
                    </p>
                    {r.note && <p className="perm-rule__note">{r.note}</p>}
                  </div>
                  <div className="perm-rule__actions">
                    <button type="button" className="btn btn--small" onClick={() => setEditing(r.id)} data-testid="permission-rule-edit">
                      <Icon name="edit" size={14} />
                      {t("permissions.rules.edit")}
                    </button>
                    <button type="button" className="btn btn--small btn--danger-quiet" onClick={() => setRemoving(r)} data-testid="permission-rule-delete">
                      <Icon name="trash" size={14} />
                      {t("permissions.rules.delete")}
                    </button>
                  </div>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}

      <ConfirmDialog
        subject={removing}
        onCancel={() => setRemoving(null)}
        onConfirm={(rule) => void remove(rule)}
        title={t("permissions.rules.deleteTitle")}
        description={t("permissions.rules.deleteBody")}
        confirmLabel={t("permissions.rules.delete")}
        testId="permission-rule-delete-dialog"
        confirmTestId="permission-rule-delete-confirm"
      >
        {removing && <RuleSummary rule={removing} sessionTitle={titleOf} />}
      </ConfirmDialog>
    </section>
  );
}

import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useAssistants, useClient, useProviders, type Assistant } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { AssistantForm } from "./AssistantForm";
import { StartNotice } from "./AssistantPicker";
import { useAssistantText } from "./names";
import { useStartAssistant } from "./useStartAssistant";
import "./assistants.css";

/**
 * Settings → Assistants: every assistant (built-in first), to start a chat from, edit,
 * copy, hide from the New chat menu or delete; built-in ones are copied to be changed.
 */
export function AssistantsSection() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const { data, error } = useAssistants();
  const [editing, setEditing] = useState<{ assistant: Assistant | null } | null>(null);
  const [deleting, setDeleting] = useState<Assistant | null>(null);
  const start = useStartAssistant();
  const act = useAction(async (fn: () => Promise<unknown>) => fn());
  const remove = useAction(async (a: Assistant) => {
    await client.assistants.remove(a.id);
    setDeleting(null);
  });
  const text = useAssistantText();

  return (
    <div className="assistants" data-testid="assistants-section">
      <div className="assistants__actions">
        <button type="button" className="btn btn--primary" onClick={() => setEditing({ assistant: null })} data-testid="assistant-new">
          <Icon name="plus" size={16} />
          {t("assistants.new")}
        </button>
      </div>
      {error && <ErrorView error={error} onRetry={() => void client.stores.assistants.reload()} />}
      {act.error && <ErrorView error={act.error} compact />}
      <StartNotice start={start} />
      <ul className="assistants__list" data-testid="assistants-list">
        {(data?.assistants ?? []).map((a) => (
          <AssistantRow
            key={a.id}
            assistant={a}
            onStart={() => void start.run(a.id)}
            onEdit={() => setEditing({ assistant: a })}
            onCopy={() => void act.run(async () => setEditing({ assistant: await client.assistants.copy(a.id) }))}
            onHide={() => void act.run(() => client.assistants.setHidden(a.id, !a.hidden))}
            onDelete={() => setDeleting(a)}
          />
        ))}
      </ul>
      <AssistantForm open={editing !== null} assistant={editing?.assistant ?? null} onClose={() => setEditing(null)} />
      <ConfirmDialog
        subject={deleting}
        onCancel={() => {
          setDeleting(null);
          remove.setError(null);
        }}
        onConfirm={(a) => void remove.run(a)}
        title={t("assistants.deleteTitle", { name: deleting ? text.name(deleting) : "" })}
        description={t("assistants.deleteHelp")}
        confirmLabel={t("assistants.delete")}
        busy={remove.busy}
        testId="assistant-delete-dialog"
        confirmTestId="assistant-delete-confirm"
      >
        {remove.error && <ErrorView error={remove.error} compact />}
      </ConfirmDialog>
    </div>
  );
}

function AssistantRow({ assistant: a, onStart, onEdit, onCopy, onHide, onDelete }: { assistant: Assistant; onStart: () => void; onEdit: () => void; onCopy: () => void; onHide: () => void; onDelete: () => void }) {
  const { t } = useTranslation("settings");
  const text = useAssistantText();
  const providers = useProviders().data?.providers ?? [];
  const name = text.name(a);
  const provider = providers.find((p) => p.id === a.providerId);
  const model = a.providerId || a.model ? `${provider?.name ?? (a.providerId ? t("assistants.removedProvider") : t("assistants.defaultProvider"))}${a.model ? ` · ${a.model}` : ""}` : t("assistants.defaultModel");
  return (
    <li className={`assistant-row${a.hidden ? " is-hidden" : ""}`} data-testid="assistant-row" data-id={a.id} data-builtin={a.builtin ? "1" : undefined}>
      <span className="assistant-icon assistant-row__icon" aria-hidden="true">
        {a.icon}
      </span>
      <div className="assistant-row__main">
        <div className="assistant-row__head">
          <span className="assistant-row__name">{name}</span>
          {a.builtin && <span className="badge">{t("assistants.builtinBadge")}</span>}
          {a.hidden && (
            <span className="badge" data-testid="assistant-hidden">
              {t("assistants.hiddenBadge")}
            </span>
          )}
        </div>
        {text.description(a) && <p className="assistant-row__desc muted">{text.description(a)}</p>}
        <p className="assistant-row__model muted">{model}</p>
      </div>
      <div className="assistant-row__actions">
        <button type="button" className="btn btn--small" onClick={onStart} data-testid="assistant-start" aria-label={t("assistants.startLabel", { name })}>
          <Icon name="chat" size={14} />
          {t("assistants.start")}
        </button>
        {!a.builtin && (
          <button type="button" className="btn btn--small" onClick={onEdit} data-testid="assistant-edit" aria-label={t("assistants.editLabel", { name })}>
            <Icon name="edit" size={14} />
            {t("assistants.edit")}
          </button>
        )}
        <button type="button" className="btn btn--small" onClick={onCopy} data-testid="assistant-copy" aria-label={t("assistants.copyLabel", { name })}>
          <Icon name="copy" size={14} />
          {t("assistants.copy")}
        </button>
        <button type="button" className="btn btn--small" onClick={onHide} data-testid="assistant-hide" aria-label={t(a.hidden ? "assistants.showLabel" : "assistants.hideLabel", { name })}>
          {a.hidden ? t("assistants.show") : t("assistants.hide")}
        </button>
        {!a.builtin && (
          <button type="button" className="btn btn--small btn--danger-quiet" onClick={onDelete} data-testid="assistant-delete" aria-label={t("assistants.deleteLabel", { name })}>
            <Icon name="trash" size={14} />
          </button>
        )}
      </div>
    </li>
  );
}

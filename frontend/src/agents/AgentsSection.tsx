import { useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { AGENTS_TOPIC, useClient, useProviders, type AgentType } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { useTopicList } from "../components/useTopicList";
import { Visible } from "../tools/visible";
import "./agents.css";

const EMPTY: AgentType = { name: "", description: "", instructions: "", tools: [], builtIn: false };

/**
 * Settings → Sub-agents: the types a sub-agent can be (the built-in ones, read-only, and
 * the user's, which can be added, edited and deleted). The budgets are the section's
 * settings, shown below by the settings page. Kept current from agents:types.
 */
export function AgentsSection() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [editing, setEditing] = useState<AgentType | null>(null);
  const [removing, setRemoving] = useState<AgentType | null>(null);
  const { items: types, error, reload: load } = useTopicList(() => client.agents.listTypes(), AGENTS_TOPIC, "agents:types");

  const remove = useAction(async (type: AgentType) => {
    await client.agents.deleteType(type.name);
    setRemoving(null);
    load();
  });
  const own = types?.filter((x) => !x.builtIn) ?? [];

  return (
    <div className="agents" data-testid="agents-section">
      <h3 className="agents__title">{t("agents.typesTitle")}</h3>
      {error && <ErrorView error={error} onRetry={load} />}
      {types && (
        <ul className="agents__list" data-testid="agent-types">
          {types.map((type) => (
            <TypeRow key={type.name} type={type} onEdit={() => setEditing(type)} onDelete={() => setRemoving(type)} />
          ))}
        </ul>
      )}
      {types && own.length === 0 && <p className="muted">{t("agents.empty")}</p>}
      {editing ? (
        <TypeForm
          initial={editing}
          onCancel={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            load();
          }}
        />
      ) : (
        <button type="button" className="btn" data-testid="agent-type-add" onClick={() => setEditing(EMPTY)}>
          <Icon name="plus" size={15} />
          {t("agents.add")}
        </button>
      )}
      {remove.error && <ErrorView error={remove.error} compact />}
      <ConfirmDialog
        subject={removing}
        onCancel={() => setRemoving(null)}
        onConfirm={(type) => void remove.run(type)}
        busy={remove.busy}
        title={t("agents.delete", { name: removing?.name ?? "" })}
        description={t("agents.deleteConfirm", { name: removing?.name ?? "" })}
        confirmLabel={t("agents.delete", { name: removing?.name ?? "" })}
        testId="agent-type-delete-dialog"
        confirmTestId="agent-type-delete-confirm"
      />
    </div>
  );
}

function TypeRow({ type, onEdit, onDelete }: { type: AgentType; onEdit: () => void; onDelete: () => void }) {
  const { t } = useTranslation("settings");
  const tools = type.tools.includes("*") ? t("agents.allTools") : type.tools.join(", ");
  return (
    <li className="agent-type" data-testid="agent-type" data-name={type.name}>
      <div className="agent-type__main">
        <div className="agent-type__head">
          <strong>
            <Visible text={type.name} />
          </strong>
          {type.builtIn && <span className="badge">{t("agents.builtIn")}</span>}
          {type.taskOnly && <span className="badge">{t("agents.taskOnly")}</span>}
        </div>
        {type.description && (
          <p className="agent-type__desc">
            <Visible text={type.description} />
          </p>
        )}
        <p className="muted agent-type__tools">
          <Visible text={t("agents.tools", { tools })} />
        </p>
        {type.model && (
          <p className="muted">
            <Visible text={t("agents.model_of", { model: type.providerId ? `${type.providerId} / ${type.model}` : type.model })} />
          </p>
        )}
      </div>
      {!type.builtIn && (
        <div className="agent-type__actions">
          <button type="button" className="btn btn--quiet" onClick={onEdit} data-testid="agent-type-edit" aria-label={t("agents.edit", { name: type.name })}>
            <Icon name="edit" size={15} />
          </button>
          <button type="button" className="btn btn--quiet" onClick={onDelete} data-testid="agent-type-delete" aria-label={t("agents.delete", { name: type.name })}>
            <Icon name="trash" size={15} />
          </button>
        </div>
      )}
    </li>
  );
}

/** Adds a type, or edits one (its name then stays). */
function TypeForm({ initial, onCancel, onSaved }: { initial: AgentType; onCancel: () => void; onSaved: (t: AgentType) => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const providers = useProviders().data?.providers ?? [];
  const id = useId();
  const editing = initial.name !== "";
  const [type, setType] = useState<AgentType>(initial);
  const [tools, setTools] = useState(initial.tools.join("\n"));
  const save = useAction(async () => {
    const saved = await client.agents.saveType({ ...type, tools: tools.split("\n").map((s) => s.trim()).filter(Boolean) });
    onSaved(saved);
    return saved;
  });
  const set = (patch: Partial<AgentType>) => setType((prev) => ({ ...prev, ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  return (
    <form className="agent-form form-grid" onSubmit={submit} data-testid="agent-type-form">
      <Field id={`${id}-name`} label={t("agents.name")} help={t("agents.nameHelp")}>
        <input id={`${id}-name`} className="input" value={type.name} disabled={editing} onChange={(e) => set({ name: e.target.value })} data-testid="agent-type-name" />
      </Field>
      <Field id={`${id}-desc`} label={t("agents.description")} help={t("agents.descriptionHelp")}>
        <input id={`${id}-desc`} className="input" value={type.description} onChange={(e) => set({ description: e.target.value })} data-testid="agent-type-description" />
      </Field>
      <Field id={`${id}-instr`} label={t("agents.instructions")} help={t("agents.instructionsHelp")}>
        <textarea id={`${id}-instr`} className="input" rows={4} value={type.instructions} onChange={(e) => set({ instructions: e.target.value })} data-testid="agent-type-instructions" />
      </Field>
      <Field id={`${id}-tools`} label={t("agents.toolsField")} help={t("agents.toolsHelp")}>
        <textarea id={`${id}-tools`} className="input" rows={3} value={tools} onChange={(e) => setTools(e.target.value)} data-testid="agent-type-tools" />
      </Field>
      <Field id={`${id}-provider`} label={t("agents.provider")} help={t("agents.providerHelp")}>
        <select id={`${id}-provider`} className="input" value={type.providerId ?? ""} onChange={(e) => set({ providerId: e.target.value })} data-testid="agent-type-provider">
          <option value="">—</option>
          {providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </Field>
      <Field id={`${id}-model`} label={t("agents.model")} help={t("agents.modelHelp")}>
        <input id={`${id}-model`} className="input" value={type.model ?? ""} onChange={(e) => set({ model: e.target.value })} data-testid="agent-type-model" />
      </Field>
      {save.error && <ErrorView error={save.error} compact />}
      <div className="agent-form__buttons">
        <button type="button" className="btn" onClick={onCancel}>
          {t("agents.cancel")}
        </button>
        <button type="submit" className="btn btn--primary" disabled={save.busy} data-testid="agent-type-save">
          {t("agents.save")}
        </button>
      </div>
    </form>
  );
}

import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Model, ReasoningControls } from "../api";
import { Icon } from "../components/Icon";
import { hasReasoningControls, ReasoningControl } from "./ReasoningControl";

/** A model typed by hand: capabilities guessed like the backend does for unknown ids (tools on). */
export function manualModel(id: string): Model {
  return { id, contextWindow: 0, supportsTools: true, vision: false, reasoning: false, source: "manual" };
}

/**
 * The provider's models: per model the context window and the tools / vision / reasoning
 * switches, the reasoning choice where the provider has one, which one is the default,
 * remove; and a field to add a model by name.
 */
export function ModelsEditor({
  models,
  defaultModel,
  onChange,
  onDefault,
  reasoning,
}: {
  models: Model[];
  defaultModel: string;
  onChange: (models: Model[]) => void;
  onDefault: (id: string) => void;
  /** The provider's reasoning choices; absent = no reasoning column. */
  reasoning?: ReasoningControls;
}) {
  const { t } = useTranslation("settings");
  const [draft, setDraft] = useState("");
  const addId = useId();
  const set = (i: number, patch: Partial<Model>) => onChange(models.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  const add = () => {
    const id = draft.trim();
    if (!id) return;
    if (!models.some((m) => m.id === id)) onChange([...models, manualModel(id)]);
    if (!defaultModel) onDefault(id);
    setDraft("");
  };

  return (
    <div className="models-editor" data-testid="models-editor">
      {models.length === 0 ? (
        <p className="muted models-editor__empty">{t("providers.models.empty")}</p>
      ) : (
        <div className="models-table-wrap">
          <table className="models-table">
            <thead>
              <tr>
                <th scope="col">{t("providers.models.default")}</th>
                <th scope="col">{t("providers.models.id")}</th>
                <th scope="col">{t("providers.models.context")}</th>
                <th scope="col">{t("providers.models.tools")}</th>
                <th scope="col">{t("providers.models.vision")}</th>
                <th scope="col">{t("providers.models.reasoning")}</th>
                {hasReasoningControls(reasoning) && <th scope="col">{t("providers.models.reasoningChoice")}</th>}
                <th scope="col">
                  <span className="visually-hidden">{t("providers.models.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {models.map((m, i) => (
                <tr key={m.id} data-testid="model-row" data-model={m.id}>
                  <td>
                    <input
                      type="radio"
                      name="default-model"
                      checked={defaultModel === m.id}
                      onChange={() => onDefault(m.id)}
                      aria-label={t("providers.models.makeDefault", { model: m.id })}
                    />
                  </td>
                  <td className="models-table__id">
                    <code>{m.id}</code>
                    {m.source === "manual" && <span className="badge">{t("providers.models.manual")}</span>}
                  </td>
                  <td>
                    <input
                      type="number"
                      className="input models-table__ctx"
                      min={0}
                      step={1024}
                      value={m.contextWindow || ""}
                      placeholder={t("providers.models.unknown")}
                      aria-label={t("providers.models.contextFor", { model: m.id })}
                      onChange={(e) => set(i, { contextWindow: Math.max(0, Math.floor(Number(e.target.value) || 0)) })}
                    />
                  </td>
                  {(["supportsTools", "vision", "reasoning"] as const).map((k) => (
                    <td key={k}>
                      <input
                        type="checkbox"
                        className="switch switch--small"
                        checked={m[k]}
                        onChange={(e) => set(i, { [k]: e.target.checked })}
                        aria-label={t(`providers.models.${k}For`, { model: m.id })}
                        data-testid={`model-${k}`}
                      />
                    </td>
                  ))}
                  {hasReasoningControls(reasoning) && (
                    <td>
                      <ReasoningControl
                        controls={reasoning}
                        value={{ effort: m.reasoningEffort, budget: m.reasoningBudget }}
                        onChange={(v) => set(i, { reasoningEffort: v.effort, reasoningBudget: v.budget })}
                        defaultLabel={t("providers.reasoning.providerDefault")}
                        label={m.id}
                        testId="model-reasoning-choice"
                      />
                    </td>
                  )}
                  <td>
                    <button
                      type="button"
                      className="icon-btn icon-btn--small"
                      aria-label={t("providers.models.remove", { model: m.id })}
                      onClick={() => {
                        onChange(models.filter((_, j) => j !== i));
                        if (defaultModel === m.id) onDefault("");
                      }}
                    >
                      <Icon name="x" size={14} />
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="models-editor__add">
        <label htmlFor={addId} className="visually-hidden">
          {t("providers.models.addLabel")}
        </label>
        <input
          id={addId}
          className="input"
          value={draft}
          placeholder={t("providers.models.addPlaceholder")}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              add();
            }
          }}
          data-testid="model-add-input"
        />
        <button type="button" className="btn btn--small" disabled={!draft.trim()} onClick={add} data-testid="model-add">
          <Icon name="plus" size={14} />
          {t("providers.models.add")}
        </button>
      </div>
    </div>
  );
}

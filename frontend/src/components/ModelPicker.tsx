import { useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Provider } from "../api";

/** The provider a choice resolves to: the one named, else the first ("" = the default). */
export function resolveProvider(providerId: string, providers: readonly Provider[]): Provider | undefined {
  return providers.find((p) => p.id === providerId) ?? (providerId ? undefined : providers[0]);
}

/** A provider and model choice: "" for either means the default. */
export interface ModelChoice {
  providerId: string;
  model: string;
}

/** Value of the model select's entry that switches to typing a model id (model ids are trimmed, so none starts with a space). */
const OTHER = " other";

/**
 * One provider and model picker for every place that chooses a model (the conversation's
 * header and settings, an assistant, auto mode's classifier): a provider select, then the
 * provider's models, or a text field for a model the list lacks (typed; also when the
 * provider lists none). A change of provider clears the model. `testId` prefixes the two
 * controls' test ids (`<testId>-provider`, `<testId>-model`).
 */
export function ModelPicker({
  value,
  providers,
  onChange,
  disabled,
  testId = "model",
  defaultProviderLabel,
  className,
}: {
  value: ModelChoice;
  providers: readonly Provider[];
  onChange: (patch: Partial<ModelChoice>) => void;
  disabled?: boolean;
  testId?: string;
  /** The label of the provider select's "" entry; "Default (first provider)" when absent. */
  defaultProviderLabel?: string;
  className?: string;
}) {
  const { t } = useTranslation("chat");
  const pid = useId();
  const mid = useId();
  const provider = resolveProvider(value.providerId, providers);
  const models = provider?.models ?? [];
  const listed = !value.model || models.some((m) => m.id === value.model);
  const [typing, setTyping] = useState(false);
  const [draft, setDraft] = useState(value.model);
  const input = useRef<HTMLInputElement>(null);
  // "Other model…" puts the cursor in the field it turns into.
  useEffect(() => {
    if (typing) input.current?.focus();
  }, [typing]);
  useEffect(() => {
    setDraft(value.model);
  }, [value.model]);
  useEffect(() => {
    setTyping(false);
  }, [value.providerId]);
  const first = providers[0];
  const typed = typing || (provider !== undefined && models.length === 0);
  const commitDraft = () => {
    const m = draft.trim();
    if (m !== value.model) onChange({ model: m });
    if (!m || models.some((x) => x.id === m)) setTyping(false);
  };
  return (
    <div className={`model-picker${className ? ` ${className}` : ""}`}>
      <label htmlFor={pid} className="visually-hidden">
        {t("model.provider")}
      </label>
      <select
        id={pid}
        className="input select model-picker__provider"
        value={value.providerId}
        disabled={disabled}
        data-testid={`${testId}-provider`}
        onChange={(e) => onChange({ providerId: e.target.value, model: "" })}
      >
        <option value="">{defaultProviderLabel ?? (first ? t("model.defaultProvider", { name: first.name }) : t("model.noProvider"))}</option>
        {providers.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
        {value.providerId && !providers.some((p) => p.id === value.providerId) && <option value={value.providerId}>{t("model.missingProvider")}</option>}
      </select>
      <label htmlFor={mid} className="visually-hidden">
        {t("model.model")}
      </label>
      {typed ? (
        <input
          id={mid}
          className="input model-picker__model"
          value={draft}
          disabled={disabled || !provider}
          placeholder={provider?.defaultModel ? t("model.defaultModel", { name: provider.defaultModel }) : t("model.typeModel")}
          data-testid={`${testId}-model`}
          ref={input}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={commitDraft}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              commitDraft();
            } else if (e.key === "Escape" && typing) {
              e.stopPropagation();
              setDraft(value.model);
              setTyping(false);
            }
          }}
        />
      ) : (
        <select
          id={mid}
          className="input select model-picker__model"
          value={value.model}
          disabled={disabled || !provider}
          data-testid={`${testId}-model`}
          onChange={(e) => (e.target.value === OTHER ? setTyping(true) : onChange({ model: e.target.value }))}
        >
          <option value="">{provider?.defaultModel ? t("model.defaultModel", { name: provider.defaultModel }) : t("model.defaultModelNone")}</option>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
            </option>
          ))}
          {!listed && <option value={value.model}>{value.model}</option>}
          <option value={OTHER}>{t("model.other")}</option>
        </select>
      )}
    </div>
  );
}

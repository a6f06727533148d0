import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { Provider, Session } from "../api";

/** The provider a session actually uses: its own, else the first one ("" = default). */
export function effectiveProvider(session: Pick<Session, "providerId">, providers: readonly Provider[]): Provider | undefined {
  return providers.find((p) => p.id === session.providerId) ?? (session.providerId ? undefined : providers[0]);
}

/**
 * Per-session provider and model. "Default" follows the first provider and its default
 * model; a model the session names that the list lacks stays selectable.
 */
export function ModelPicker({
  session,
  providers,
  onChange,
  disabled,
}: {
  session: Session;
  providers: readonly Provider[];
  onChange: (patch: { providerId?: string; model?: string }) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation("chat");
  const pid = useId();
  const mid = useId();
  const provider = effectiveProvider(session, providers);
  const models = provider?.models ?? [];
  const hasModel = !session.model || models.some((m) => m.id === session.model);
  const first = providers[0];
  return (
    <div className="model-picker">
      <label htmlFor={pid} className="visually-hidden">
        {t("model.provider")}
      </label>
      <select
        id={pid}
        className="input select model-picker__provider"
        value={session.providerId}
        disabled={disabled}
        data-testid="session-provider"
        onChange={(e) => onChange({ providerId: e.target.value })}
      >
        <option value="">{first ? t("model.defaultProvider", { name: first.name }) : t("model.noProvider")}</option>
        {providers.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
        {session.providerId && !providers.some((p) => p.id === session.providerId) && (
          <option value={session.providerId}>{t("model.missingProvider")}</option>
        )}
      </select>
      <label htmlFor={mid} className="visually-hidden">
        {t("model.model")}
      </label>
      <select
        id={mid}
        className="input select model-picker__model"
        value={session.model}
        disabled={disabled || !provider}
        data-testid="session-model"
        onChange={(e) => onChange({ model: e.target.value })}
      >
        <option value="">
          {provider?.defaultModel ? t("model.defaultModel", { name: provider.defaultModel }) : t("model.defaultModelNone")}
        </option>
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.id}
          </option>
        ))}
        {!hasModel && <option value={session.model}>{session.model}</option>}
      </select>
    </div>
  );
}

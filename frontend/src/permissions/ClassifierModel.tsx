import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useProviders, type AppError, type SettingsSnapshot } from "../api";
import { ErrorView } from "../components/ErrorView";
import { ModelPicker, type ModelChoice } from "../components/ModelPicker";
import { useSaveSetting } from "../settings/SettingField";

export const CLASSIFIER_PROVIDER_KEY = "permissions.classifierProvider";
export const CLASSIFIER_MODEL_KEY = "permissions.classifierModel";

/**
 * Auto mode's classifier model, chosen with the shared model picker; it writes the two
 * settings (provider, model). With neither set, auto mode asks the user.
 */
export function ClassifierModel({ settings }: { settings: SettingsSnapshot }) {
  const { t } = useTranslation("settings");
  const providers = useProviders().data?.providers ?? [];
  const save = useSaveSetting();
  const labelId = useId();
  const [error, setError] = useState<AppError | null>(null);
  const str = (k: string) => (typeof settings.values[k] === "string" ? (settings.values[k] as string) : "");
  const raw = str(CLASSIFIER_PROVIDER_KEY);
  // The setting may name a provider by name as well as by id.
  const byName = providers.find((p) => p.id === raw || p.name.toLowerCase() === raw.toLowerCase());
  const value: ModelChoice = { providerId: byName?.id ?? raw, model: str(CLASSIFIER_MODEL_KEY) };
  const unset = !value.providerId && !value.model;

  const change = async (patch: Partial<ModelChoice>) => {
    setError(null);
    try {
      if (patch.providerId !== undefined && patch.providerId !== value.providerId) await save(CLASSIFIER_PROVIDER_KEY, patch.providerId);
      if (patch.model !== undefined && patch.model !== value.model) await save(CLASSIFIER_MODEL_KEY, patch.model);
    } catch (e) {
      setError(toAppError(e));
    }
  };

  return (
    <div className="field classifier-model" role="group" aria-labelledby={labelId} data-testid="classifier-picker">
      <span id={labelId} className="field__label">
        {t("permissions.classifier.label")}
      </span>
      <ModelPicker
        value={value}
        providers={providers}
        onChange={(p) => void change(p)}
        testId="classifier"
        defaultProviderLabel={providers[0] ? t("permissions.classifier.firstProvider", { name: providers[0].name }) : t("permissions.classifier.noProvider")}
      />
      <p className="field__help">{unset ? t("permissions.classifier.unset") : t("permissions.classifier.help")}</p>
      {error && <ErrorView error={error} compact />}
    </div>
  );
}

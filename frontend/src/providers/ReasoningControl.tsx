import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { ReasoningChoice, ReasoningControls } from "../api";

/** Whether a provider offers any reasoning choice. */
export function hasReasoningControls(c: ReasoningControls | undefined): c is ReasoningControls {
  return !!c && ((c.efforts?.length ?? 0) > 0 || !!c.budget);
}

/**
 * A reasoning choice among what the provider offers: an effort level (the first option
 * leaves the default, whose wording the caller gives) and, where the provider has one, a
 * token budget. Nothing is shown for a provider without controls.
 */
export function ReasoningControl({
  controls,
  value,
  onChange,
  defaultLabel,
  label,
  testId,
}: {
  controls: ReasoningControls | undefined;
  value: ReasoningChoice;
  onChange: (v: ReasoningChoice) => void;
  /** The text of the "leave it" option (e.g. "Provider default", "Model's setting"). */
  defaultLabel: string;
  /** Accessible name of the controls (e.g. the model they belong to). */
  label: string;
  testId: string;
}) {
  const { t } = useTranslation("settings");
  const budgetId = useId();
  if (!hasReasoningControls(controls)) return null;
  const efforts = controls.efforts ?? [];
  const effort = value.effort ?? "";
  const showBudget = !!controls.budget && effort !== "off";
  return (
    <span className="reasoning-control" data-testid={testId}>
      {efforts.length > 0 && (
        <select
          className="input select reasoning-control__effort"
          value={efforts.includes(effort) ? effort : ""}
          aria-label={t("providers.reasoning.effortFor", { name: label })}
          onChange={(e) => onChange({ ...value, effort: e.target.value || undefined })}
          data-testid={`${testId}-effort`}
        >
          <option value="">{defaultLabel}</option>
          {efforts.map((e) => (
            <option key={e} value={e}>
              {t(`providers.reasoning.efforts.${e}`, { defaultValue: e })}
            </option>
          ))}
        </select>
      )}
      {showBudget && (
        <>
          <label htmlFor={budgetId} className="visually-hidden">
            {t("providers.reasoning.budgetFor", { name: label })}
          </label>
          <input
            id={budgetId}
            type="number"
            className="input reasoning-control__budget"
            min={0}
            step={256}
            value={value.budget || ""}
            placeholder={t("providers.reasoning.budgetPlaceholder")}
            onChange={(e) => onChange({ ...value, budget: Math.max(0, Math.floor(Number(e.target.value) || 0)) || undefined })}
            data-testid={`${testId}-budget`}
          />
        </>
      )}
    </span>
  );
}

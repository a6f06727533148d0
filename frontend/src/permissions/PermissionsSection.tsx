import { useId } from "react";
import { useTranslation } from "react-i18next";
import { DEFAULT_MODE_KEY, isPermissionMode, PERMISSION_MODES, type SettingsSnapshot, type SettingSpec } from "../api";
import { SettingField, SpecFields } from "../settings/SettingField";
import { genericSpecs } from "../settings/specs";
import { AuditLog } from "./AuditLog";
import { CLASSIFIER_MODEL_KEY, CLASSIFIER_PROVIDER_KEY, ClassifierModel } from "./ClassifierModel";
import { BypassWarning } from "./BypassWarning";
import { RulesGroup } from "./RulesGroup";
import { RuleTester } from "./RuleTester";
import "./permissions.css";

/** Used when an older backend does not describe the setting. */
const FALLBACK_SPEC: SettingSpec = {
  key: DEFAULT_MODE_KEY,
  type: "enum",
  default: "default",
  enum: [...PERMISSION_MODES],
  section: "permissions",
};

/**
 * Settings → Permissions (APPR-2): the default mode (bypass carries a warning that stays
 * while it is on), the allow / deny / ask rules, a tester for sample calls, and the audit
 * log of every decision.
 */
export function PermissionsSection({ settings }: { settings: SettingsSnapshot }) {
  const { t } = useTranslation("settings");
  const headingId = useId();
  const spec = settings.specs.find((s) => s.key === DEFAULT_MODE_KEY) ?? FALLBACK_SPEC;
  const raw = DEFAULT_MODE_KEY in settings.values ? settings.values[DEFAULT_MODE_KEY] : spec.default;
  const mode = isPermissionMode(raw) ? raw : "default";
  // The classifier's provider and model have their own picker (ClassifierModel).
  const picked = new Set([DEFAULT_MODE_KEY, CLASSIFIER_PROVIDER_KEY, CLASSIFIER_MODEL_KEY]);
  const more = genericSpecs(settings.specs, "permissions").filter((s) => !picked.has(s.key));

  return (
    <div className="permissions" data-testid="permissions-section">
      <section className="group" aria-labelledby={headingId}>
        <h3 id={headingId} className="group__title">
          {t("permissions.mode.title")}
        </h3>
        {mode === "bypassPermissions" && <BypassWarning scope="default" />}
        <div className="group__body">
          <SettingField spec={spec} value={raw} />
          <ul className="perm-modes" aria-label={t("permissions.mode.explain")}>
            {PERMISSION_MODES.map((m) => (
              <li key={m} className={`perm-modes__item${m === mode ? " is-current" : ""}`} data-mode={m} aria-current={m === mode ? "true" : undefined}>
                <span className="perm-modes__name">{t(`permissions.modes.${m}.label`)}</span>
                <span className="perm-modes__desc">{t(`permissions.modes.${m}.description`)}</span>
              </li>
            ))}
          </ul>
        </div>
        <p className="field__help">{t("permissions.mode.denyNote")}</p>
        <ClassifierModel settings={settings} />
      </section>
      <SpecFields title={t("general.more")} specs={more} values={settings.values} />
      <RulesGroup />
      <RuleTester />
      <AuditLog />
    </div>
  );
}

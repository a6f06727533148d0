import { useId } from "react";
import { useTranslation } from "react-i18next";
import { LANGUAGE_KEY, THEME_KEY, type SettingsSnapshot, type SettingSpec } from "../api";
import { useAppInfo } from "../shell/appInfo";
import { ShortcutList } from "../shell/ShortcutsHost";
import { DataSection } from "./DataSection";
import { SettingField, SpecFields } from "./SettingField";
import { genericSpecs, orphanSpecs } from "./specs";
import { useSettingsSections } from "./useSections";

/** Fallback specs if an older backend does not describe language and theme. */
const FALLBACK: Record<string, SettingSpec> = {
  [LANGUAGE_KEY]: { key: LANGUAGE_KEY, type: "enum", default: "system", enum: ["system", "en", "zh-CN"], section: "general" },
  [THEME_KEY]: { key: THEME_KEY, type: "enum", default: "system", enum: ["system", "light", "dark"], section: "general" },
};

export function GeneralSection({ settings }: { settings: SettingsSnapshot }) {
  const { t } = useTranslation("settings");
  const { info } = useAppInfo();
  const appearanceId = useId();
  const dataId = useId();
  const keysId = useId();
  const spec = (key: string) => settings.specs.find((s) => s.key === key) ?? FALLBACK[key]!;
  const value = (s: SettingSpec) => (s.key in settings.values ? settings.values[s.key] : s.default);
  const more = genericSpecs(settings.specs, "general");
  const { sections } = useSettingsSections();
  const orphans = [...orphanSpecs(settings.specs, sections).entries()];

  return (
    <>
      <section className="group" aria-labelledby={appearanceId}>
        <h3 id={appearanceId} className="group__title">
          {t("general.appearance")}
        </h3>
        <div className="group__body">
          {[LANGUAGE_KEY, THEME_KEY].map((k) => {
            const s = spec(k);
            return <SettingField key={k} spec={s} value={value(s)} />;
          })}
        </div>
      </section>

      <section className="group" aria-labelledby={dataId}>
        <h3 id={dataId} className="group__title">
          {t("general.dataDir")}
        </h3>
        <div className="group__body">
          <div className="field field--stacked">
            <p className="field__help">{t("general.dataDirHelp")}</p>
            <output className="path" data-testid="data-dir" aria-label={t("general.dataDir")}>
              {info?.dataDir || t("general.dataDirUnknown")}
            </output>
          </div>
        </div>
      </section>

      <DataSection />

      <section className="group" aria-labelledby={keysId} data-testid="settings-shortcuts">
        <h3 id={keysId} className="group__title">
          {t("common:shortcuts.title")}
        </h3>
        <p className="group__description">{t("common:shortcuts.help")}</p>
        <div className="group__body">
          <ShortcutList />
        </div>
      </section>

      <SpecFields title={t("general.more")} specs={more} values={settings.values} />
      {orphans.map(([section, specs]) => (
        <SpecFields
          key={section}
          title={t(`specSections.${section}`, { defaultValue: section.charAt(0).toUpperCase() + section.slice(1) })}
          specs={specs}
          values={settings.values}
        />
      ))}
    </>
  );
}

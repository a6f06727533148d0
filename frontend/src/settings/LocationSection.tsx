import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { SettingsSnapshot } from "../api";
import { useOpenExternal } from "../tools/web";
import { SecretsPanel } from "./SecretsPanel";
import { SpecFields } from "./SettingField";
import { genericSpecs } from "./specs";

/** The map services' keys, as the location capability declares them. */
export const LOCATION_SECRETS = ["maps.amap", "maps.google"] as const;

/** Where each key is made: fixed addresses, opened in the user's browser. */
const CONSOLES = { amap: "https://lbs.amap.com/", google: "https://console.cloud.google.com/" } as const;

const STEPS = { amap: 4, google: 5 } as const;

/**
 * Settings → Location: how to get each map service's key (the steps of its console),
 * the keys themselves, and the timeout and endpoints.
 */
export function LocationSection({ settings }: { settings: SettingsSnapshot }) {
  const { t } = useTranslation("settings");
  const headingId = useId();
  return (
    <>
      <section className="group" aria-labelledby={headingId} data-testid="location-keys">
        <h3 id={headingId} className="group__title">
          {t("location.keysTitle")}
        </h3>
        <p className="group__description">{t("location.keysDescription")}</p>
        <details className="location-guide" data-testid="location-key-guide">
          <summary>{t("location.guideTitle")}</summary>
          <KeyGuide service="amap" />
          <KeyGuide service="google" />
        </details>
        <p className="muted">{t("location.datumNote")}</p>
      </section>
      <SecretsPanel names={LOCATION_SECRETS} />
      <SpecFields specs={genericSpecs(settings.specs, "location")} values={settings.values} />
    </>
  );
}

function KeyGuide({ service }: { service: keyof typeof CONSOLES }) {
  const { t } = useTranslation("settings");
  const open = useOpenExternal();
  const url = CONSOLES[service];
  const steps = Array.from({ length: STEPS[service] }, (_, i) => t(`location.${service}Steps.${i + 1}`));
  return (
    <div data-testid={`location-guide-${service}`}>
      <h4>{t(`location.${service}Title`)}</h4>
      <ol>
        {steps.map((s, i) => (
          <li key={i}>{s}</li>
        ))}
      </ol>
      <a href={url} target="_blank" rel="noreferrer noopener" onClick={(e) => open(e, url)}>
        {t("location.openConsole", { site: new URL(url).host })}
      </a>
    </div>
  );
}

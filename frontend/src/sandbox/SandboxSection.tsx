import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { SettingsSnapshot } from "../api";
import { ErrorView } from "../components/ErrorView";
import { SpecFields } from "../settings/SettingField";
import { genericSpecs } from "../settings/specs";
import { SandboxHolds, useSandboxStatus } from "./SandboxStatus";

/** Settings → Sandbox: the level on this machine and what holds, then the unsandboxed switch. */
export function SandboxSection({ settings }: { settings: SettingsSnapshot }) {
  const { t } = useTranslation("chat");
  const { status, error } = useSandboxStatus();
  const headingId = useId();
  return (
    <>
      <section className="group" aria-labelledby={headingId} data-testid="sandbox-section">
        <h3 id={headingId} className="group__title">
          {t("sandbox.statusTitle")}
        </h3>
        <div className="group__body">
          {error && <ErrorView error={error} />}
          {status ? <SandboxHolds status={status} /> : !error && <p className="muted" role="status" aria-busy="true" />}
        </div>
      </section>
      <SpecFields specs={genericSpecs(settings.specs, "sandbox")} values={settings.values} />
    </>
  );
}

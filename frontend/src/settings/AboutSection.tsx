import { useCallback, useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  toAppError,
  useClient,
  useSecrets,
  type AppError,
  type BackendOwner,
  type BuildInfo,
  type DoctorCheck,
  type DoctorReport,
} from "../api";
import appIcon from "../assets/appicon.png";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useAppInfo } from "../shell/appInfo";
import { KeyStorageNote } from "./SecretsPanel";

/**
 * Runs `Doctor` and asks who owns the data directory (on open and on demand) and keeps the
 * latest answers: the owner's window count changes as windows come and go.
 */
function useDoctor() {
  const client = useClient();
  const [report, setReport] = useState<DoctorReport | null>(null);
  const [owner, setOwner] = useState<BackendOwner | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const [running, setRunning] = useState(false);
  const run = useCallback(async () => {
    setRunning(true);
    setError(null);
    try {
      const [r, o] = await Promise.all([client.system.doctor(), client.system.backendOwner()]);
      setReport(r);
      setOwner(o);
    } catch (e) {
      setError(toAppError(e));
    } finally {
      setRunning(false);
    }
  }, [client]);
  useEffect(() => {
    void run();
  }, [run]);
  return { report, owner, error, running, run };
}

/** "cairn serve, PID 42, since 1 Dec 2026, 23:01 · windows attached: 2"; undefined without an owner. */
function useOwnerLine(owner: BackendOwner | null): string | undefined {
  const { t, i18n } = useTranslation("settings");
  if (!owner?.kind) return undefined;
  const since = new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(owner.since));
  const who = owner.kind === "serve" ? t("about.ownerServe") : t("about.ownerDesktop");
  return t("about.ownerLine", { who, pid: owner.pid, since, windows: owner.windows });
}

/** Doctor's build facts: an object from current backends, a plain version from older ones. */
function buildOf(r: DoctorReport | null): Partial<BuildInfo> {
  if (!r) return {};
  return typeof r.version === "string" ? { version: r.version } : (r.version ?? {});
}

/** "path:npx" → "npx on PATH"; known names are translated, unknown ones shown as they are. */
function CheckName({ name }: { name: string }) {
  const { t } = useTranslation("settings");
  const colon = name.indexOf(":");
  if (colon > 0) {
    const kind = name.slice(0, colon);
    const arg = name.slice(colon + 1);
    return <>{t(`about.checkKinds.${kind}`, { name: arg, defaultValue: name })}</>;
  }
  return <>{t(`about.checks.${name}`, { defaultValue: name })}</>;
}

/** ok, a failed note (optional check), or a failed requirement. */
function checkState(c: DoctorCheck): "ok" | "warn" | "bad" {
  if (c.ok) return "ok";
  return c.required ? "bad" : "warn";
}

export function AboutSection() {
  const { t } = useTranslation("settings");
  const { info, error: infoError } = useAppInfo();
  const secrets = useSecrets();
  const doctor = useDoctor();
  const versionId = useId();
  const keysId = useId();
  const healthId = useId();
  const r = doctor.report;
  const build = { ...buildOf(r), ...(info ?? {}) };
  const problems = r ? r.checks.filter((c) => !c.ok) : [];
  const ownerLine = useOwnerLine(doctor.owner);

  const rows: Array<[string, string | undefined]> = [
    [t("about.version"), build.version],
    [t("about.commit"), build.commit],
    [t("about.build"), info ? (info.desktop ? t("about.buildDesktop") : t("about.buildServe")) : undefined],
    [t("about.platform"), [build.platform, build.goVersion].filter(Boolean).join(" · ") || undefined],
    [t("about.dataDir"), info?.dataDir ?? r?.dataDir],
    [t("about.dbVersion"), r?.dbVersion !== undefined ? String(r.dbVersion) : undefined],
    [t("about.owner"), ownerLine],
  ];

  return (
    <>
      <section className="group" aria-labelledby={versionId}>
        <h3 id={versionId} className="group__title about__title">
          <img src={appIcon} alt="" className="about__icon" data-testid="about-icon" />
          {t("common:app.name")}
        </h3>
        {infoError && <ErrorView error={infoError} compact />}
        <dl className="facts" data-testid="about-facts">
          {rows
            .filter(([, v]) => v !== undefined && v !== "")
            .map(([k, v]) => (
              <div key={k} className="facts__row">
                <dt>{k}</dt>
                <dd>
                  <code>{v}</code>
                </dd>
              </div>
            ))}
        </dl>
      </section>

      <section className="group" aria-labelledby={keysId}>
        <h3 id={keysId} className="group__title">
          {t("about.keys")}
        </h3>
        {secrets.data && <KeyStorageNote secrets={secrets.data} />}
        {secrets.error && !secrets.data && <ErrorView error={secrets.error} compact />}
      </section>

      <section className="group" aria-labelledby={healthId} aria-busy={doctor.running} data-testid="doctor-report">
        <div className="group__header">
          <h3 id={healthId} className="group__title">
            {t("about.health")}
          </h3>
          <button type="button" className="btn btn--small" onClick={() => void doctor.run()} disabled={doctor.running}>
            <Icon name="refresh" size={14} />
            {doctor.running ? t("about.running") : t("common:actions.refresh")}
          </button>
        </div>
        {doctor.error && <ErrorView error={doctor.error} onRetry={() => void doctor.run()} />}
        {r && (
          <>
            <p
              className={`health-summary ${!r.ok ? "is-bad" : problems.length ? "is-warn" : "is-ok"}`}
              role="status"
              data-testid="doctor-summary"
            >
              <Icon name={r.ok ? "check" : "alert"} size={16} />
              {!r.ok ? t("about.healthProblems") : problems.length ? t("about.healthNotes") : t("about.healthOk")}
            </p>
            <ul className="checks">
              {r.checks.map((c) => {
                const state = checkState(c);
                return (
                  <li key={c.name} className={`check is-${state}`} data-testid={`doctor-check-${c.name}`}>
                    <span className="check__icon" aria-hidden="true">
                      <Icon name={state === "ok" ? "check" : state === "warn" ? "alert" : "x"} size={14} />
                    </span>
                    <span className="check__name">
                      <CheckName name={c.name} />
                    </span>
                    <span className="visually-hidden">{t(`about.state.${state}`)}</span>
                    <span className="check__detail">
                      <CheckDetail check={c} />
                    </span>
                  </li>
                );
              })}
            </ul>
          </>
        )}
        {!r && !doctor.error && <p className="muted">{t("about.running")}</p>}
      </section>
    </>
  );
}

/** A check's detail in the window's language; a report from an older backend (no texts)
 *  keeps its English detail. */
function CheckDetail({ check }: { check: DoctorCheck }) {
  const { t, i18n } = useTranslation("settings");
  const texts = check.texts ?? [];
  if (texts.length === 0 || !texts.every((x) => i18n.exists(`settings:about.detail.${x.key}`))) return <>{check.detail}</>;
  return <>{texts.map((x) => t(`about.detail.${x.key}`, x.params ?? {})).join(t("about.detailJoin"))}</>;
}

import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useSettings, UNSANDBOXED_KEY, type AppError, type SandboxLevel, type SandboxStatus } from "../api";
import { Icon } from "../components/Icon";
import { Visible } from "../tools/visible";
import "./sandbox.css";

/** The badge class of a level: green when every wall holds, amber for some, red for none. */
export function levelClass(level: SandboxLevel): string {
  return level === "strong" ? "badge--ok" : level === "reduced" ? "badge--warn" : "badge--danger";
}

/**
 * The sandbox's status, asked again whenever the unsandboxed switch changes (the status
 * says whether calls run without a sandbox).
 */
export function useSandboxStatus(): { status: SandboxStatus | null; error: AppError | null } {
  const client = useClient();
  const unsandboxed = useSettings().data?.values[UNSANDBOXED_KEY] === true;
  const [status, setStatus] = useState<SandboxStatus | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  useEffect(() => {
    let live = true;
    client.sandbox.status().then(
      (s) => live && (setStatus(s), setError(null)),
      (e) => live && setError(toAppError(e)),
    );
    return () => {
      live = false;
    };
  }, [client, unsandboxed]);
  return { status, error };
}

/** What holds for file reads, writes, network, processes and limits, and why anything is missing. */
export function SandboxHolds({ status }: { status: SandboxStatus }) {
  const { t } = useTranslation("chat");
  return (
    <div className="sandbox-holds" data-testid="sandbox-holds" data-level={status.level}>
      <p className="sandbox-holds__level">
        <span className={`badge ${levelClass(status.level)}`}>{t(`sandbox.level.${status.level}`)}</span>{" "}
        {t(`sandbox.levelHelp.${status.level}`)}
      </p>
      {status.holds.length > 0 && (
        <ul className="sandbox-holds__list">
          {status.holds.map((h) => (
            <li key={h.area} className={h.holds ? "sandbox-holds__yes" : "sandbox-holds__no"} data-area={h.area} data-holds={h.holds}>
              <Icon name={h.holds ? "check" : "x"} size={13} />
              <strong>{t(`sandbox.area.${h.area}`, { defaultValue: h.area })}</strong>
              {h.detail && (
                <span className="muted">
                  {" "}
                  <Visible text={h.detail} />
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {(status.reasons ?? []).length > 0 && (
        <>
          <p className="sandbox-holds__why">{t("sandbox.why")}</p>
          <ul className="sandbox-holds__reasons">
            {(status.reasons ?? []).map((r) => (
              <li key={r}>
                <Visible text={r} />
              </li>
            ))}
          </ul>
        </>
      )}
      {status.level === "none" && (
        <p className={status.unsandboxed ? "sandbox-holds__unconfined" : "muted"} data-testid="sandbox-unsandboxed" data-on={status.unsandboxed}>
          {t(status.unsandboxed ? "sandbox.unsandboxedOn" : "sandbox.unsandboxedOff")}
        </p>
      )}
    </div>
  );
}

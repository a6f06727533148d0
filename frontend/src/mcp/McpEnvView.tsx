import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type McpEnvVar } from "../api";
import { ErrorView } from "../components/ErrorView";

/**
 * The variables a stdio server's process starts with, by name and where they come from
 * (Cairn's default set, or the server's configuration). Values never reach the window.
 */
export function McpEnvView({ serverId }: { serverId: string }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [vars, setVars] = useState<McpEnvVar[] | null>(null);
  const [error, setError] = useState<AppError | null>(null);

  useEffect(() => {
    let live = true;
    client.mcp.environment(serverId).then(
      (v) => live && setVars(v),
      (e: unknown) => live && setError(toAppError(e)),
    );
    return () => {
      live = false;
    };
  }, [client, serverId]);

  return (
    <section className="mcp-env" aria-label={t("mcp.env.title")} data-testid="mcp-env">
      <p className="field__help">{t("mcp.env.help")}</p>
      {error && <ErrorView error={error} compact />}
      {!vars && !error && (
        <p className="muted" role="status">
          {t("mcp.env.loading")}
        </p>
      )}
      {vars && vars.length === 0 && <p className="muted">{t("mcp.env.empty")}</p>}
      {vars && vars.length > 0 && (
        <ul className="mcp-env__list">
          {vars.map((v) => (
            <li key={v.name} className="mcp-env__row" data-testid="mcp-env-var" data-source={v.source}>
              <code>{v.name}</code>
              <span className={`badge${v.source === "inherited" ? "" : " badge--ok"}`}>{t(`mcp.env.source.${v.source}`, { defaultValue: v.source })}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

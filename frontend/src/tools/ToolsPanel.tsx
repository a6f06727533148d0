import { useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useToolsets, useTopic, type AppError, type ToolEntry } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon, type IconName } from "../components/Icon";
import { toolIcon, toolsetLabel } from "./model";

interface Group {
  key: string;
  label: string;
  icon: IconName;
  tools: ToolEntry[];
}

/**
 * Settings → Tools: every registered tool (built-in, MCP, meta) grouped by namespace, with
 * its flags, where it comes from, what its definition costs in prompt tokens, and a switch
 * that turns it off for every session.
 */
export function ToolsPanel() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const { data, error } = useTopic(client.stores.tools);
  const [query, setQuery] = useState("");
  const [failure, setFailure] = useState<{ name: string; error: AppError } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const searchId = useId();

  const tools = data?.tools ?? [];
  const toolsets = useToolsets();
  const groups = useMemo(() => {
    const q = query.trim().toLowerCase();
    const out = new Map<string, Group>();
    for (const tool of tools) {
      if (q && !`${tool.name} ${tool.description} ${tool.namespaceLabel ?? ""}`.toLowerCase().includes(q)) continue;
      let g = out.get(tool.namespace);
      if (!g) {
        const key = toolsetLabel(toolsets, tool.namespace);
        const label = tool.namespaceLabel || (key ? t(key) : tool.namespace);
        g = { key: tool.namespace, label, icon: toolIcon(toolsets, tool.namespace), tools: [] };
        out.set(tool.namespace, g);
      }
      g.tools.push(tool);
    }
    return [...out.values()].sort((a, b) => a.label.localeCompare(b.label));
  }, [tools, toolsets, query, t]);
  const off = tools.filter((x) => !x.enabled).length;

  const toggle = async (tool: ToolEntry) => {
    setBusy(tool.name);
    setFailure(null);
    try {
      await client.tools.setEnabled(tool.name, !tool.enabled);
    } catch (e) {
      setFailure({ name: tool.name, error: toAppError(e) });
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="group tools-panel" data-testid="tools-panel" aria-label={t("tools.title")}>
      {error && !data && <ErrorView error={error} onRetry={() => void client.stores.tools.reload()} />}
      {data && tools.length === 0 && (
        <div className="empty-state" data-testid="tools-empty">
          <Icon name="tool" size={24} />
          <p className="empty-state__title">{t("tools.empty")}</p>
          <p className="empty-state__hint">{t("tools.emptyHint")}</p>
        </div>
      )}
      {tools.length > 0 && (
        <div className="tools-panel__bar">
          <label htmlFor={searchId} className="visually-hidden">
            {t("tools.search")}
          </label>
          <input
            id={searchId}
            type="search"
            className="input"
            placeholder={t("tools.search")}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            data-testid="tools-search"
          />
          <span className="muted">{t("tools.count", { count: tools.length, off })}</span>
        </div>
      )}
      {groups.map((g) => (
        <div key={g.key} className="tools-group" data-testid="tools-group" data-namespace={g.key}>
          <h3 className="group__title tools-group__title">
            <Icon name={g.icon} size={15} />
            {g.label}
            <span className="muted tools-group__ns">{g.key}</span>
          </h3>
          <ul className="group__body tools-list">
            {g.tools.map((tool) => (
              <li key={tool.name} className={`tool-row${tool.enabled ? "" : " is-off"}`} data-testid="tool-row" data-tool={tool.name}>
                <input
                  type="checkbox"
                  className="switch"
                  checked={tool.enabled}
                  disabled={busy === tool.name}
                  onChange={() => void toggle(tool)}
                  aria-label={t("tools.enable", { name: tool.name })}
                  data-testid="tool-enabled"
                />
                <div className="tool-row__main">
                  <div className="tool-row__head">
                    <code className="tool-row__name">{tool.name}</code>
                    <span className="badge">{t(`tools.source.${tool.source}`, { defaultValue: tool.source })}</span>
                    {tool.needsApproval && <span className="badge badge--warn">{t("tools.flags.needsApproval")}</span>}
                    {tool.destructive && <span className="badge badge--danger">{t("tools.flags.destructive")}</span>}
                    {tool.readOnly && <span className="badge badge--ok">{t("tools.flags.readOnly")}</span>}
                    {tool.concurrencySafe && <span className="badge">{t("tools.flags.concurrencySafe")}</span>}
                    {tool.defer && <span className="badge">{t(`tools.defer.${tool.defer}`, { defaultValue: tool.defer })}</span>}
                    <span className="spacer" />
                    <span className="tool-row__tokens muted">{t("tools.tokens", { count: tool.tokens })}</span>
                  </div>
                  {tool.description && <p className="tool-row__desc">{tool.description}</p>}
                  {tool.aliases && tool.aliases.length > 0 && (
                    <p className="tool-row__aliases muted">{t("tools.aliases", { names: tool.aliases.join(", ") })}</p>
                  )}
                  {failure?.name === tool.name && <ErrorView error={failure.error} compact />}
                </div>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}

import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { AGENT_RUN_TOOL, useClient, useSession, type AgentRun, type Message } from "../api";
import { Icon } from "../components/Icon";
import { formatMoney } from "../chat/cost";
import { Markdown } from "../chat/markdown/Markdown";
import { useRouter } from "../shell/router";
import { groupParts, type ToolItem } from "./model";
import { useSessionApprovals } from "./sessionApprovals";
import { ToolCard } from "./ToolCard";
import { Visible, visibleString } from "./visible";
import "./agentRun.css";

/** Whether a tool item is a sub-agent's call (agent_run). */
export function isAgentRunItem(item: ToolItem): boolean {
  return item.name === AGENT_RUN_TOOL;
}

/** agent_run's display: the run as it ended. */
export function isAgentRun(display: unknown): display is AgentRun {
  if (!display || typeof display !== "object") return false;
  const d = display as Partial<AgentRun>;
  return typeof d.sessionId === "string" && typeof d.name === "string" && typeof d.state === "string";
}

/**
 * The sub-agent an agent_run call started, inside the call's card: found by the call
 * (GetAgentRun, asked again as the call reports progress until it is there), then shown
 * live from its own conversation's events.
 */
export function AgentRunView({ item }: { item: ToolItem }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const sessionId = useSessionApprovals()?.sessionId;
  const ended = item.end?.tool?.display;
  const [found, setFound] = useState<AgentRun | null>(null);
  const step = item.call?.tool?.progress?.progress ?? 0;
  const run = isAgentRun(ended) ? ended : found;

  useEffect(() => {
    if (run || !sessionId || !item.callId || !item.call?.tool?.startedAt) return;
    let live = true;
    client.agents.getRun(sessionId, item.callId).then(
      (r) => live && setFound(r),
      () => undefined, // not started yet: the next progress asks again
    );
    return () => {
      live = false;
    };
  }, [client, run, sessionId, item.callId, item.call?.tool?.startedAt, step]);

  if (!run) {
    return item.end ? null : (
      <p className="muted agent-run__starting" data-testid="agent-run-starting">
        {t("agent.starting")}
      </p>
    );
  }
  return <AgentChild run={run} ended={Boolean(item.end)} />;
}

/** The child's latest answer: its text, its tool cards (collapsed), its state, tokens and cost. */
function AgentChild({ run, ended }: { run: AgentRun; ended: boolean }) {
  const { t, i18n } = useTranslation("chat");
  const { navigate } = useRouter();
  const { data } = useSession(run.sessionId);
  const answer = lastAnswer(data?.messages);
  const items = useMemo(() => groupParts(answer?.parts ?? []), [answer?.parts]);
  const live = answer?.status === "streaming";
  const state = live ? "running" : ended || run.state !== "running" ? run.state : (answer?.status === "complete" ? "done" : run.state);
  const tokens = answer?.usage?.totalTokens ?? run.summary.usage?.totalTokens;
  const cost = answer?.cost ?? run.summary.cost;
  const calls = items.filter((i) => i.kind === "tool").length;

  return (
    <section className="agent-run" data-testid="agent-run" data-state={state} aria-label={t("agent.title")}>
      <header className="agent-run__head">
        <Icon name="users" size={15} />
        <strong>
          <Visible text={run.name} />
        </strong>
        <span className="muted">{t("agent.type", { type: visibleString(run.type) })}</span>
        <span className={`tool-state tool-state--${state === "done" ? "done" : state === "running" ? "running" : "error"}`} data-testid="agent-run-state">
          {state === "running" && <span className="spinner" aria-hidden="true" />}
          {t(`agent.state.${state}`, { defaultValue: state })}
        </span>
        <span className="spacer" />
        {calls > 0 && <span className="muted">{t("agent.calls", { count: calls })}</span>}
        {tokens !== undefined && tokens > 0 && (
          <span className="muted" data-testid="agent-run-tokens">
            {t("agent.tokens", { count: tokens })}
          </span>
        )}
        {cost && (
          <span className="muted" data-testid="agent-run-cost" title={t("agent.costTitle")}>
            {formatMoney(cost.amount, cost.currency, i18n.language)}
          </span>
        )}
        <button type="button" className="link-btn" data-testid="agent-run-open" onClick={() => navigate({ name: "session", id: run.sessionId })}>
          {t("agent.open")}
        </button>
      </header>
      <div className="agent-run__body">
        {items.length === 0 && <p className="muted">{t("agent.noText")}</p>}
        {items.map((it) => {
          switch (it.kind) {
            case "text":
              return (
                <div key={it.key} className="part part--text" data-testid="agent-run-text">
                  <Markdown text={it.part.text ?? ""} />
                </div>
              );
            case "tool":
              return <ToolCard key={it.key} item={it} live={live} />;
            default:
              return null;
          }
        })}
      </div>
      {run.summary.sources.length > 0 && !live && (
        <details className="tool-card__section" data-testid="agent-run-sources">
          <summary>{t("agent.sources")}</summary>
          <ul>
            {run.summary.sources.map((s) => (
              <li key={s}>
                <Visible text={s} />
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

/** The child's last assistant message: the answer its task got. */
function lastAnswer(messages: readonly Message[] | undefined): Message | undefined {
  for (let i = (messages?.length ?? 0) - 1; i >= 0; i--) if (messages![i]!.role === "assistant") return messages![i];
  return undefined;
}

import { memo, useEffect, useId, useState } from "react";
import { levelClass } from "../sandbox/SandboxStatus";
import { resultLevel } from "../api/sandbox";
import { useTranslation } from "react-i18next";
import { toAppError, useToolsets, type AppError, type ApprovalRequest } from "../api";
import { ErrorView, useErrorText } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { Markdown } from "../chat/markdown/Markdown";
import {
  awaitingApproval,
  formatBytes,
  formatDuration,
  looksLikeMarkdown,
  prettyJSON,
  toolIcon,
  toolsetLabel,
  toolState,
  type ToolItem,
  type ToolState,
} from "./model";
import { ApprovalResume } from "./ApprovalResume";
import { useApprovalReason } from "./reason";
import { useSessionApprovals } from "./sessionApprovals";
import { Visible, visibleString } from "./visible";
import { isSearchAnswer, WebSearchResult } from "./WebSearchResult";
import { ToolImages } from "./ToolImages";
import { isFetchCard, WEB_FETCH_TOOLS, WebFetchFailed, WebFetchResult } from "./WebFetchResult";
import { isKbSearchDisplay, isSkillLoaded } from "../api";
import { KbSearchResult } from "./KbSearchResult";
import { isLocationDisplay, LocationResult } from "./LocationResult";
import { SkillLoadedResult } from "./SkillLoadedResult";
import { ResourceLinks, resourceLinks } from "./ResourceLinks";
import { AgentRunView, isAgentRun, isAgentRunItem } from "./AgentRunView";

/** Results longer than this (characters or lines) are cut with a "show all" button. */
export const RESULT_PREVIEW_CHARS = 1500;
export const RESULT_PREVIEW_LINES = 24;

/**
 * The data of an approval part: the approval request as it stood then. Parts stored by
 * older versions may lack fields, so every field is optional here.
 */
type ApprovalData = Partial<ApprovalRequest>;

/** Ticks once a second while `on` (for the running duration). */
function useNow(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [on]);
  return now;
}

/**
 * The general tool card (UI-1): tool name with its namespace icon, state, progress and
 * duration in the header; arguments (pretty JSON, collapsible), result (Markdown, JSON or
 * text, cut with "show all") and the apperr of a failure in the body. It opens by itself
 * when the call fails.
 */
export const ToolCard = memo(function ToolCard({ item, live }: { item: ToolItem; live: boolean }) {
  const { t } = useTranslation("chat");
  const state = toolState(item, live);
  const [open, setOpen] = useState(state === "error");
  const bodyId = useId();

  useEffect(() => {
    if (state === "error") setOpen(true);
  }, [state]);

  const approval = lastApproval(item);
  // The request's current status: the session's approvals know about interruptions and
  // resumes that no part records (the process that would have written it was gone).
  const sessionApprovals = useSessionApprovals();
  const requestId = approval?.id;
  const request = requestId ? sessionApprovals?.byId.get(requestId) : undefined;
  const approvalStatus = request?.status ?? approval?.status;
  const resumable = Boolean(requestId && sessionApprovals && (approvalStatus === "interrupted" || approvalStatus === "resumed"));
  const toolsets = useToolsets();
  const namespace = item.namespace ?? approval?.namespace;
  const server = item.server || approval?.server;
  const label = item.title || item.name;
  const nsLabel = toolsetLabel(toolsets, namespace);
  const call = item.call?.tool;
  const end = item.end?.tool;
  const running = state === "running" || state === "awaiting-approval";
  const now = useNow(running && Boolean(call?.startedAt));
  const duration = end?.durationMs ?? (running && call?.startedAt ? now - call.startedAt : undefined);
  const progress = running ? call?.progress : undefined;
  const preparing = item.call?.state === "streaming";

  return (
    <div
      className={`tool-card tool-card--${state}`}
      data-testid="tool-card"
      data-state={state}
      data-tool={item.name}
      data-approval={approvalStatus === "interrupted" || approvalStatus === "resumed" ? approvalStatus : undefined}
    >
      <button type="button" className="tool-card__head" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen((o) => !o)}>
        <Icon name="chevron" size={14} className="tool-card__chevron" />
        <span className="tool-card__ns" title={nsLabel ? t(nsLabel) : undefined}>
          <Icon name={toolIcon(toolsets, namespace)} size={15} />
        </span>
        <span className="tool-card__name">
          {server && <span className="tool-card__server">{visibleString(server)} › </span>}
          <code>{label ? <Visible text={label} /> : t("tools.unnamed")}</code>
        </span>
        <StateBadge
          state={state}
          phase={approvalStatus === "interrupted" && state !== "done" && state !== "error" ? "interrupted" : preparing ? "preparing" : !call?.startedAt ? "queued" : null}
        />
        {namespace === "sandbox" && resultLevel(end?.display) && (
          <span
            className={`badge tool-card__level ${levelClass(resultLevel(end?.display)!)}`}
            data-testid="tool-card-level"
            data-level={resultLevel(end?.display)}
          >
            {t(resultLevel(end?.display) === "none" ? "sandbox.ranUnsandboxed" : `sandbox.level.${resultLevel(end?.display)}`)}
          </span>
        )}
        {progress?.message && <span className="tool-card__progress-text">{visibleString(progress.message)}</span>}
        <span className="spacer" />
        {duration !== undefined && <span className="tool-card__duration">{formatDuration(duration)}</span>}
      </button>
      {resumable && sessionApprovals && requestId && (
        <ApprovalResume request={{ ...(approval as object), ...(request ?? {}), id: requestId }} status={approvalStatus!} approvals={sessionApprovals} />
      )}
      {isAgentRunItem(item) && <AgentRunView item={item} />}
      {running && progress && progress.total ? (
        <div
          className="tool-card__bar"
          role="progressbar"
          aria-label={t("tools.progress")}
          aria-valuemin={0}
          aria-valuemax={progress.total}
          aria-valuenow={progress.progress ?? 0}
        >
          <span style={{ width: `${Math.min(100, ((progress.progress ?? 0) / progress.total) * 100)}%` }} />
        </div>
      ) : null}
      {open && (
        <div className="tool-card__body" id={bodyId}>
          <p className="tool-card__wire">
            <code>
              <Visible text={item.name} />
            </code>
            {item.callId && <span className="muted"> · {item.callId}</span>}
          </p>
          <Arguments text={call?.arguments} streaming={preparing} />
          {approval && (
            <ApprovalLine
              data={{ ...approval, status: approvalStatus }}
              pending={awaitingApproval(item) && (!request || request.status === "pending") && approvalStatus !== "interrupted"}
            />
          )}
          {state === "error" && end?.error && <ErrorView error={end.error as AppError} compact />}
          {state === "error" && WEB_FETCH_TOOLS.has(item.name) && <WebFetchFailed args={call?.arguments} />}
          {state === "stopped" && (
            <p className="tool-card__note">{end?.error ? <ErrorText error={end.error} /> : t("tools.stoppedNote")}</p>
          )}
          {end && state !== "error" && isSearchAnswer(item.name, end.display) && <WebSearchResult answer={end.display} />}
          {end && state !== "error" && isFetchCard(item.name, end.display) && <WebFetchResult card={end.display} content={end.content} />}
          {end && state !== "error" && isKbSearchDisplay(item.name, end.display) && <KbSearchResult display={end.display} />}
          {end && state !== "error" && isLocationDisplay(item.name, end.display) && <LocationResult display={end.display} />}
          {end && state !== "error" && isSkillLoaded(item.name, end.display) && <SkillLoadedResult display={end.display} content={end.content} />}
          {end &&
            state !== "error" &&
            !isSearchAnswer(item.name, end.display) &&
            !isFetchCard(item.name, end.display) &&
            !isKbSearchDisplay(item.name, end.display) &&
            !isLocationDisplay(item.name, end.display) &&
            !isSkillLoaded(item.name, end.display) &&
            !isAgentRun(end.display) && <Result content={end.content} display={end.display} />}
          {end && state === "error" && end.content && (
            <details className="tool-card__section">
              <summary>{t("tools.modelSaw")}</summary>
              <pre className="tool-card__pre visible-text">
                <Visible text={end.content} />
              </pre>
            </details>
          )}
          {end?.images && end.images.length > 0 && <ToolImages images={end.images} />}
          {end && state !== "error" && <CardResourceLinks namespace={item.namespace} display={end.display} />}
          {end?.spillPath && (
            <p className="tool-card__note">
              {t("tools.spilled", { path: end.spillPath, size: formatBytes(end.size ?? 0) })}
            </p>
          )}
        </div>
      )}
    </div>
  );
});

/** The resource links of an MCP tool's result, each opened from the card. */
function CardResourceLinks({ namespace, display }: { namespace?: string; display?: unknown }) {
  const found = resourceLinks(namespace, display);
  return found ? <ResourceLinks serverId={found.serverId} links={found.links} /> : null;
}

function ErrorText({ error }: { error: AppError }) {
  return <>{useErrorText()(toAppError(error))}</>;
}

function lastApproval(item: ToolItem): ApprovalData | null {
  for (let i = item.approvals.length - 1; i >= 0; i--) {
    const d = item.approvals[i]!.data;
    if (d && typeof d === "object") return d as ApprovalData;
  }
  return null;
}

/**
 * phase refines "running": the model is still writing the arguments, or the call waits its
 * turn; "interrupted" names a call whose approval request Cairn's exit cut short.
 */
function StateBadge({ state, phase }: { state: ToolState; phase: "preparing" | "queued" | "interrupted" | null }) {
  const { t } = useTranslation("chat");
  const label =
    phase === "interrupted" ? t("tools.state.interrupted") : phase && state === "running" ? t(`tools.state.${phase}`) : t(`tools.state.${state}`);
  return (
    <span className={`tool-state tool-state--${state}`}>
      {(state === "running" || state === "awaiting-approval") && <span className="spinner" aria-hidden="true" />}
      {label}
    </span>
  );
}

function Arguments({ text, streaming }: { text: string | undefined; streaming: boolean }) {
  const { t } = useTranslation("chat");
  const pretty = prettyJSON(text);
  if (!text && !streaming) return null;
  return (
    <details className="tool-card__section" open={streaming || undefined}>
      <summary>{t("tools.arguments")}</summary>
      <pre className="tool-card__pre visible-text" data-testid="tool-args">
        <Visible text={pretty ?? text ?? ""} />
      </pre>
    </details>
  );
}

function ApprovalLine({ data, pending }: { data: ApprovalData; pending: boolean }) {
  const { t } = useTranslation("chat");
  const reasonOf = useApprovalReason();
  if (pending) {
    const why = reasonOf(data);
    return (
      <div className="tool-card__approval">
        <Icon name="shield" size={15} />
        <span>{t("tools.approvalPending")}</span>
        {why && <span className="muted" data-testid="tool-approval-reason"> · {why}</span>}
      </div>
    );
  }
  if (!data.decision && !data.status) return null;
  if (data.source === "classifier" && data.status === "allowed") {
    // Auto mode: nobody was asked; the classifier's reason says why it ran.
    return (
      <div className="tool-card__approval" data-testid="tool-classifier">
        <Icon name="shield" size={15} />
        <span>{reasonOf(data)}</span>
      </div>
    );
  }
  const what = data.decision
    ? t(`tools.decision.${data.decision}`, { defaultValue: data.decision })
    : t(`tools.approvalStatus.${data.status}`, { defaultValue: data.status ?? "" });
  return (
    <div className="tool-card__approval">
      <Icon name="shield" size={15} />
      <span>{what}</span>
      {data.decisionReason && <span className="muted"> · {data.decisionReason}</span>}
    </div>
  );
}

/** The result: structured display as JSON, else the content as JSON, Markdown or text. */
function Result({ content, display }: { content?: string; display?: unknown }) {
  const { t } = useTranslation("chat");
  const [all, setAll] = useState(false);
  let kind: "json" | "markdown" | "text" = "text";
  let text = content ?? "";
  if (display !== undefined && display !== null) {
    kind = "json";
    text = typeof display === "string" ? (prettyJSON(display) ?? display) : JSON.stringify(display, null, 2);
  } else {
    const pretty = prettyJSON(content);
    if (pretty !== null) {
      kind = "json";
      text = pretty;
    } else if (looksLikeMarkdown(text)) {
      kind = "markdown";
    }
  }
  if (!text) return null;
  const lines = text.split("\n");
  const long = text.length > RESULT_PREVIEW_CHARS || lines.length > RESULT_PREVIEW_LINES;
  const shown = long && !all ? cut(text, lines) : text;
  return (
    <div className="tool-card__section tool-card__result" data-testid="tool-result" data-kind={kind}>
      <div className="tool-card__label">{t("tools.result")}</div>
      {kind === "markdown" ? (
        <Markdown text={shown} />
      ) : (
        <pre className="tool-card__pre visible-text">
          <Visible text={shown} />
        </pre>
      )}
      {long && (
        <button type="button" className="link-btn" onClick={() => setAll((a) => !a)} data-testid="tool-show-all">
          {all ? t("tools.showLess") : t("tools.showAll", { count: text.length })}
        </button>
      )}
    </div>
  );
}

function cut(text: string, lines: string[]): string {
  let s = lines.length > RESULT_PREVIEW_LINES ? lines.slice(0, RESULT_PREVIEW_LINES).join("\n") : text;
  if (s.length > RESULT_PREVIEW_CHARS) s = s.slice(0, RESULT_PREVIEW_CHARS);
  return `${s}\n…`;
}

import { memo, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useOptionalClient, type Part } from "../api";
import type { ChatToolCost } from "../api/generated";
import { useOptionalRouter } from "../shell/router";
import { ErrorView, useErrorText } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { toAppError } from "../api";
import { formatDuration } from "../tools/model";
import { visibleString } from "../tools/visible";
import { Markdown } from "./markdown/Markdown";
import { CitationContext } from "./Citation";
import type { CitationTable } from "./citations";

/**
 * Assistant text: streaming Markdown. citations are the search results its markers ([1])
 * refer to, shown as chips (Citation.tsx).
 */
export const TextPart = memo(function TextPart({ part, citations }: { part: Part; citations?: CitationTable }) {
  return (
    <div className="part part--text" data-testid="part-text" data-state={part.state}>
      <CitationContext.Provider value={citations ?? null}>
        <Markdown text={part.text ?? ""} />
      </CitationContext.Provider>
    </div>
  );
});

/** The model's reasoning: open while it streams, collapsed once done (the user can toggle). */
export const ReasoningPart = memo(function ReasoningPart({ part }: { part: Part }) {
  const { t } = useTranslation("chat");
  const streaming = part.state === "streaming";
  const [open, setOpen] = useState(streaming);
  const was = useRef(streaming);
  useEffect(() => {
    if (was.current !== streaming) {
      was.current = streaming;
      setOpen(streaming);
    }
  }, [streaming]);
  const took = part.updatedAt && part.createdAt ? part.updatedAt - part.createdAt : 0;
  return (
    <div className={`part reasoning${open ? " is-open" : ""}`} data-testid="part-reasoning" data-state={part.state}>
      <button type="button" className="reasoning__toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <Icon name="chevron" size={14} className="reasoning__chevron" />
        <Icon name="brain" size={15} />
        {streaming ? (
          <span className="reasoning__label is-live">{t("reasoning.live")}</span>
        ) : (
          <span className="reasoning__label">{took > 1000 ? t("reasoning.doneFor", { duration: formatDuration(took) }) : t("reasoning.done")}</span>
        )}
      </button>
      {open && (
        <div className="reasoning__body">
          <Markdown text={part.text ?? ""} />
        </div>
      )}
    </div>
  );
});

/**
 * A status line: a retry after a rate limit, the error that ended the answer, or what the
 * model was told before a round (a background task that ended).
 */
export const StatusPart = memo(function StatusPart({ part, onRetry }: { part: Part; onRetry?: () => void }) {
  const { t } = useTranslation("chat");
  const errorText = useErrorText();
  const st = part.status;
  if (!st) return null;
  if (st.kind === "retry") {
    return (
      <div className="part status-line" data-testid="part-status" data-kind="retry">
        <Icon name="clock" size={15} />
        <span>
          {t("status.retry", { seconds: Math.max(1, Math.round((st.waitMs ?? 0) / 1000)), attempt: st.attempt ?? 1 })}
          {st.error && <span className="muted"> · {errorText(toAppError(st.error))}</span>}
        </span>
      </div>
    );
  }
  if (st.kind === "tool-cost" && st.toolCost) {
    return <ToolCostNotice cost={st.toolCost} />;
  }
  if (st.kind === "notice" && st.notice) {
    const n = st.notice;
    const state = n.state ? t(`tasks.state.${n.state}`, { defaultValue: n.state }) : "";
    return (
      <div className="part status-line" role="note" data-testid="part-status" data-kind="notice" data-task-id={n.id}>
        <Icon name="terminal" size={15} />
        <span>
          {t("status.notice.taskEnded", { title: visibleString(n.title || n.id), state })}
          {n.exitCode !== undefined && n.exitCode !== null && n.state !== "done" && <span className="muted"> · {t("tasks.exitCode", { code: n.exitCode })}</span>}
        </span>
      </div>
    );
  }
  if (st.error) {
    return (
      <div className="part" data-testid="part-status" data-kind={st.kind}>
        <ErrorView error={st.error} onRetry={onRetry} />
      </div>
    );
  }
  return null;
});

/** The setting the tool-cost notice's first way out turns on. */
export const FOLD_ALL_KEY = "chat.foldAllTools";

/**
 * Said before a request went out whose tool definitions take more of the model's window
 * than chat.toolContextShare allows, with the ways out: fold every MCP tool, turn servers
 * off, or set the model's window when it was only assumed.
 */
function ToolCostNotice({ cost }: { cost: ChatToolCost }) {
  const { t, i18n } = useTranslation("chat");
  const client = useOptionalClient();
  const router = useOptionalRouter();
  const [state, setState] = useState<{ kind: "idle" | "busy" | "done" } | { kind: "error"; error: unknown }>({ kind: "idle" });
  const n = (v: number) => new Intl.NumberFormat(i18n.language).format(v);
  const foldAll = () => {
    if (!client) return;
    setState({ kind: "busy" });
    client.settings.set(FOLD_ALL_KEY, true).then(
      () => setState({ kind: "done" }),
      (error: unknown) => setState({ kind: "error", error }),
    );
  };
  const canFold = !cost.foldAll && state.kind !== "done";
  return (
    <div className="part tool-cost" role="note" data-testid="part-status" data-kind="tool-cost">
      <Icon name="alert" size={15} />
      <div className="tool-cost__body">
        <p>
          {t("status.toolCost.text", { percent: cost.percent, tokens: n(cost.tokens), window: n(cost.window), limit: cost.limit, tools: cost.tools })}
          {!cost.windowKnown && <> {t("status.toolCost.assumed", { window: n(cost.window) })}</>}
        </p>
        <div className="tool-cost__actions">
          {client && canFold && (
            <button type="button" className="btn btn--small" disabled={state.kind === "busy"} onClick={foldAll} data-testid="tool-cost-fold">
              {t("status.toolCost.foldAll")}
            </button>
          )}
          {state.kind === "done" && <span className="muted" data-testid="tool-cost-folded">{t("status.toolCost.folded")}</span>}
          {router && (
            <button type="button" className="btn btn--small" onClick={() => router.openSettings("mcp")} data-testid="tool-cost-servers">
              {t("status.toolCost.servers")}
            </button>
          )}
          {router && !cost.windowKnown && (
            <button type="button" className="btn btn--small" onClick={() => router.openSettings("providers")} data-testid="tool-cost-window">
              {t("status.toolCost.window")}
            </button>
          )}
        </div>
        {state.kind === "error" && <ErrorView error={state.error} compact />}
      </div>
    </div>
  );
}

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type McpLogLine } from "../api";
import { copyText } from "../components/clipboard";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { clockTime, mergeLines } from "./model";

/** As many lines as the backend keeps in memory. */
export const MAX_LOG_LINES = 1000;
/** Within this many pixels of the bottom the view keeps following new lines. */
const STICK_PX = 24;

/**
 * A server's live log: the recent lines (GetMCPLogs) and every new one (`mcp:log`), in a
 * monospace view that follows the end until the user scrolls up.
 */
export function McpLogView({ serverId }: { serverId: string }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [lines, setLines] = useState<McpLogLine[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<AppError | null>(null);
  const [following, setFollowing] = useState(true);
  const [copied, setCopied] = useState(false);
  const boxRef = useRef<HTMLDivElement>(null);
  const followRef = useRef(true);
  const gen = useRef(0);

  const stopRef = useRef<() => void>(() => {});

  // (Re)loads the lines. Lines that come while GetMCPLogs runs are held and merged
  // without duplicates; the previous subscription ends.
  const load = useCallback(() => {
    stopRef.current();
    const my = ++gen.current;
    const arrived: McpLogLine[] = [];
    let loading = true;
    stopRef.current = client.mcp.watchLog(serverId, (line) => {
      if (my !== gen.current) return;
      if (loading) arrived.push(line);
      else setLines((cur) => mergeLines(cur, [line], MAX_LOG_LINES));
    });
    client.mcp.logs(serverId).then(
      (got) => {
        if (my !== gen.current) return;
        loading = false;
        setLines(mergeLines(got, arrived, MAX_LOG_LINES));
        setError(null);
        setLoaded(true);
      },
      (e: unknown) => {
        if (my !== gen.current) return;
        loading = false;
        setLines((cur) => mergeLines(cur, arrived, MAX_LOG_LINES));
        setError(toAppError(e));
        setLoaded(true);
      },
    );
  }, [client, serverId]);

  useEffect(() => {
    load();
    // After a reconnect lines may have been missed: load them again.
    const stopRe = client.mcp.onReconnect(load);
    return () => {
      gen.current++;
      stopRef.current();
      stopRef.current = () => {};
      stopRe();
    };
  }, [client, load]);

  useLayoutEffect(() => {
    const box = boxRef.current;
    if (box && followRef.current) box.scrollTop = box.scrollHeight;
  }, [lines]);

  const onScroll = () => {
    const box = boxRef.current;
    if (!box) return;
    const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight <= STICK_PX;
    followRef.current = atEnd;
    setFollowing(atEnd);
  };

  const jump = () => {
    followRef.current = true;
    setFollowing(true);
    const box = boxRef.current;
    if (box) box.scrollTop = box.scrollHeight;
  };

  const copy = async () => {
    const ok = await copyText(lines.map((l) => `${clockTime(l.time)} [${l.stream}] ${l.text}`).join("\n"));
    setCopied(ok);
    if (ok) setTimeout(() => setCopied(false), 1500);
  };

  return (
    <div className="mcp-logview" data-testid="mcp-logview">
      <div className="mcp-logview__bar">
        <span className="field__label">{t("mcp.log.title")}</span>
        <span className="muted">{t("mcp.log.count", { count: lines.length })}</span>
        <span className="spacer" />
        {!following && (
          <button type="button" className="btn btn--small btn--quiet" onClick={jump} data-testid="mcp-log-follow">
            <Icon name="arrowDown" size={14} />
            {t("mcp.log.follow")}
          </button>
        )}
        <button type="button" className="btn btn--small btn--quiet" onClick={() => void copy()} disabled={lines.length === 0}>
          <Icon name={copied ? "check" : "copy"} size={14} />
          {copied ? t("mcp.log.copied") : t("mcp.log.copy")}
        </button>
      </div>
      {error && <ErrorView error={error} compact onRetry={() => load()} />}
      <div
        ref={boxRef}
        className="mcp-log"
        role="log"
        aria-label={t("mcp.log.title")}
        aria-live="off"
        tabIndex={0}
        onScroll={onScroll}
        data-testid="mcp-log"
      >
        {loaded && lines.length === 0 && <p className="mcp-log__empty">{t("mcp.log.empty")}</p>}
        {lines.map((l, i) => (
          <div key={i} className={`mcp-log__line mcp-log__line--${l.stream}`} data-testid="mcp-log-line" data-stream={l.stream}>
            <span className="mcp-log__time">{clockTime(l.time)}</span>
            <span className="mcp-log__stream">{t(`mcp.log.stream.${l.stream}`, { defaultValue: l.stream })}</span>
            <span className="mcp-log__text">{l.text}</span>
          </div>
        ))}
      </div>
    </div>
  );
}

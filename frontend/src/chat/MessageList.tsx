import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type { Message } from "../api";
import { Icon } from "../components/Icon";

export interface MessageListProps {
  messages: readonly Message[];
  renderMessage: (m: Message, index: number) => ReactNode;
  /** Shown when there are no messages. */
  empty?: ReactNode;
  /** True while an answer streams (aria-busy). */
  busy?: boolean;
  /** A message to scroll to and highlight (a search hit). */
  focus?: string;
}

/** How close to the end (px) still counts as "at the bottom", so new text keeps it in view. */
const STICK = 64;

/**
 * The message list, virtualized: only the messages in and near the viewport are in the
 * DOM (each measured as it renders), so sessions with thousands of messages scroll
 * smoothly. It follows the end while the user is there; scrolling up stops following and
 * offers a "jump to latest" button.
 */
export function MessageList({ messages, renderMessage, empty, busy, focus }: MessageListProps) {
  const { t } = useTranslation("chat");
  const scrollRef = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const [away, setAway] = useState(false);

  const virtualizer = useVirtualizer({
    count: messages.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 120,
    overscan: 6,
    paddingStart: 20,
    paddingEnd: 28,
    getItemKey: (i) => messages[i]?.id ?? i,
  });

  const total = virtualizer.getTotalSize();
  const last = messages[messages.length - 1];

  const toEnd = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
  }, []);

  // A search hit: stop following the end and bring the message to the middle, again
  // once its neighbours are measured (heights are estimates until they render).
  const focusIndex = focus ? messages.findIndex((m) => m.id === focus) : -1;
  useLayoutEffect(() => {
    if (focusIndex < 0) return;
    follow.current = false;
    setAway(true);
    virtualizer.scrollToIndex(focusIndex, { align: "center" });
    const again = requestAnimationFrame(() => virtualizer.scrollToIndex(focusIndex, { align: "center" }));
    return () => cancelAnimationFrame(again);
  }, [focusIndex, virtualizer]);

  // Keep the end in view while following: new messages, streamed text, measured heights.
  useLayoutEffect(() => {
    if (follow.current && messages.length > 0) toEnd();
  }, [total, messages.length, last, toEnd]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < STICK;
    follow.current = atEnd;
    if (away === atEnd) setAway(!atEnd);
  };

  const jump = () => {
    follow.current = true;
    setAway(false);
    if (messages.length > 0) virtualizer.scrollToIndex(messages.length - 1, { align: "end" });
    requestAnimationFrame(toEnd);
  };

  // A feed holds articles: an empty conversation's list is a plain labelled region.
  return (
    <div className="message-list-wrap">
      <div
        ref={scrollRef}
        className="message-list"
        onScroll={onScroll}
        data-testid="message-list"
        role={messages.length > 0 ? "feed" : "region"}
        aria-busy={busy || undefined}
        aria-label={t("list.label")}
        tabIndex={0}
      >
        {messages.length === 0 ? (
          empty
        ) : (
          <div className="message-list__inner" style={{ height: total }}>
            {virtualizer.getVirtualItems().map((v) => {
              const m = messages[v.index]!;
              return (
                <div
                  key={v.key}
                  data-index={v.index}
                  ref={virtualizer.measureElement}
                  className={m.id === focus ? "message-list__row message-list__row--found" : "message-list__row"}
                  data-found={m.id === focus || undefined}
                  style={{ transform: `translateY(${v.start}px)` }}
                >
                  {renderMessage(m, v.index)}
                </div>
              );
            })}
          </div>
        )}
      </div>
      {away && messages.length > 0 && (
        <button type="button" className="btn btn--small jump-latest" onClick={jump} data-testid="jump-latest">
          <Icon name="arrowDown" size={14} />
          {t("list.jumpLatest")}
        </button>
      )}
    </div>
  );
}

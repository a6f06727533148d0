import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import type { Cost, Message, Usage } from "../api";
import { conversationTotals, formatCount, formatMoney } from "./cost";

/** Where an answer's price came from, for its tooltip. */
function useCostSource() {
  const { t } = useTranslation("chat");
  return (c: Cost) => t(`usage.from.${c.source === "user" || c.source === "provider" ? c.source : "default"}`, { date: c.asOf ?? "" });
}

/**
 * Under an answer: its tokens (prompt and completion, and the cached and reasoning ones
 * where the provider reports them) and, when its model has a price, what it cost.
 */
export function UsageLine({ usage, cost }: { usage: Usage; cost?: Cost | null }) {
  const { t, i18n } = useTranslation("chat");
  const lng = i18n.language;
  const from = useCostSource();
  const n = (v: number | undefined) => formatCount(v ?? 0, lng);
  const prompt = usage.cachedTokens ? t("usage.promptCached", { n: n(usage.promptTokens), cached: n(usage.cachedTokens) }) : t("usage.prompt", { n: n(usage.promptTokens) });
  const completion = usage.reasoningTokens
    ? t("usage.completionReasoning", { n: n(usage.completionTokens), reasoning: n(usage.reasoningTokens) })
    : t("usage.completion", { n: n(usage.completionTokens) });
  const total = t("usage.short", { total: n(usage.totalTokens || usage.promptTokens + usage.completionTokens) });
  return (
    <span className="message__usage" data-testid="message-usage">
      <span>{[total, prompt, completion].join(" · ")}</span>
      {cost && (
        <span className="message__cost" data-testid="message-cost" data-source={cost.source} title={from(cost)}>
          {formatMoney(cost.amount, cost.currency, lng)}
          <span className="visually-hidden">{` (${from(cost)})`}</span>
        </span>
      )}
    </span>
  );
}

/**
 * The conversation's total in its header: the tokens of the answers on the path shown
 * and their cost. When some answers have no price the sum is marked as a lower bound and
 * says how many were left out; with no priced answer only the tokens show.
 */
export function ConversationTotal({ messages }: { messages: readonly Message[] }) {
  const { t, i18n } = useTranslation("chat");
  const lng = i18n.language;
  const totals = useMemo(() => conversationTotals(messages), [messages]);
  if (totals.answers === 0) return null;
  const money = totals.costs.map((c) => formatMoney(c.amount, c.currency, lng)).join(" + ");
  const partial = totals.priced > 0 && totals.priced < totals.answers;
  const detail = [
    t("total.detail", {
      tokens: formatCount(totals.tokens, lng),
      prompt: formatCount(totals.prompt, lng),
      completion: formatCount(totals.completion, lng),
      count: totals.answers,
    }),
    totals.cached ? t("total.cached", { n: formatCount(totals.cached, lng) }) : "",
    totals.reasoning ? t("total.reasoning", { n: formatCount(totals.reasoning, lng) }) : "",
    partial ? t("total.unpriced", { count: totals.answers - totals.priced }) : "",
    totals.priced === 0 ? t("total.noPrice") : "",
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <span className="session__total" data-testid="session-total" title={detail}>
      <span aria-hidden="true">
        <span data-testid="session-total-tokens">{t("total.tokens", { n: formatCount(totals.tokens, lng, true) })}</span>
        {money && (
          <span data-testid="session-total-cost" data-partial={partial || undefined}>
            {" · "}
            {partial ? t("total.atLeast", { cost: money }) : money}
          </span>
        )}
      </span>
      <span className="visually-hidden">{money ? t("total.spoken", { cost: partial ? t("total.atLeast", { cost: money }) : money, detail }) : detail}</span>
    </span>
  );
}

import type { Message } from "../api";

/**
 * An amount of money in the window's language. Answers often cost fractions of a cent,
 * so amounts under one unit keep up to four decimals, and amounts under a cent two
 * significant digits, never rounding a real cost to zero.
 */
export function formatMoney(amount: number, currency: string, lng: string): string {
  const opts: Intl.NumberFormatOptions = { style: "currency", currency };
  if (amount > 0 && amount < 0.01) {
    opts.maximumSignificantDigits = 2;
  } else if (amount > 0 && amount < 1) {
    opts.minimumFractionDigits = 2;
    opts.maximumFractionDigits = 4;
  }
  try {
    return new Intl.NumberFormat(lng, opts).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** A count of tokens in the window's language ("12,345"; compact: "12K", "1.2万"). */
export function formatCount(n: number, lng: string, compact = false): string {
  return new Intl.NumberFormat(lng, compact ? { notation: "compact", maximumFractionDigits: 1 } : {}).format(n);
}

/** The costs of some answers added up, one sum per currency (sorted by currency). */
export interface Totals {
  tokens: number;
  prompt: number;
  completion: number;
  cached: number;
  reasoning: number;
  /** Answers with a usage, and those of them with a cost. */
  answers: number;
  priced: number;
  costs: { currency: string; amount: number }[];
}

/**
 * Adds up the answers of a conversation's path: their tokens, and the costs the backend
 * gave them (an answer without a cost is counted as unpriced, never as free).
 */
export function conversationTotals(messages: readonly Message[]): Totals {
  const t: Totals = { tokens: 0, prompt: 0, completion: 0, cached: 0, reasoning: 0, answers: 0, priced: 0, costs: [] };
  const by = new Map<string, number>();
  for (const m of messages) {
    if (m.role !== "assistant" || !m.usage) continue;
    const u = m.usage;
    t.answers++;
    t.prompt += u.promptTokens;
    t.completion += u.completionTokens;
    t.tokens += u.totalTokens || u.promptTokens + u.completionTokens;
    t.cached += u.cachedTokens ?? 0;
    t.reasoning += u.reasoningTokens ?? 0;
    const c = m.cost;
    if (c) {
      t.priced++;
      by.set(c.currency, (by.get(c.currency) ?? 0) + c.amount);
    }
  }
  t.costs = [...by.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([currency, amount]) => ({ currency, amount }));
  return t;
}

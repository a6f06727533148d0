import { RELOAD } from "./store";
import type * as wire from "./generated";
import type { CairnEvent, Transport } from "./types";

// Wire types of the elicitation facade (app_elicit.go, backend/elicit): an MCP server's
// question to the user, carried on the `elicitations` topic.

export type ElicitationRequest = wire.ElicitRequest;
export type ElicitationField = wire.ElicitField;
export type ElicitationAction = wire.ElicitAction;
export type PendingElicitations = wire.ElicitPending;

export const ELICITATIONS_TOPIC = "elicitations";
export const ElicitationEvents = {
  requested: "elicitation:requested",
  answered: "elicitation:answered",
} as const;

export function elicitationsApi(t: Transport) {
  return {
    listPending: () => t.call<PendingElicitations>("ListPendingElicitations"),
    /**
     * The first answer from any window wins; later ones reject with
     * elicitation_already_answered. An accepted content that does not fit the form rejects
     * with elicitation_answer_invalid and the question stays open.
     */
    answer: (id: string, action: ElicitationAction, content: Record<string, unknown>, windowId: string) =>
      t.call<ElicitationRequest>("AnswerElicitation", id, action, content, windowId),
  };
}

export type ElicitationsApi = ReturnType<typeof elicitationsApi>;

/** Keeps the open questions (the forms) current. */
export function applyElicitationsEvent(state: PendingElicitations, ev: CairnEvent): PendingElicitations | typeof RELOAD | undefined {
  const r = ev.data as ElicitationRequest | undefined;
  switch (ev.type) {
    case ElicitationEvents.requested: {
      if (!r?.id) return RELOAD;
      const rest = state.requests.filter((x) => x.id !== r.id);
      return { ...state, seq: ev.seq, requests: r.status === "pending" ? [...rest, r] : rest };
    }
    case ElicitationEvents.answered:
      if (!r?.id) return RELOAD;
      return { ...state, seq: ev.seq, requests: state.requests.filter((x) => x.id !== r.id) };
    default:
      return undefined;
  }
}

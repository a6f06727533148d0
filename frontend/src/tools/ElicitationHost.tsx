import { useState } from "react";
import { toAppError, useClient, useSessionList, useTopic, type AppError, type ElicitationAction } from "../api";
import { useRouter } from "../shell/router";
import { windowId } from "../shell/windowId";
import { ElicitationDialog } from "./ElicitationDialog";
import { NoticeToast, RequestContext } from "./RequestHostParts";

/** Codes that mean "someone (or something) already ended this question". */
const SETTLED = new Set(["elicitation_already_answered", "elicitation_not_found"]);

/**
 * Shows an MCP server's question (elicitation) in every window while one is open: the
 * open session's first, else the oldest. The backend takes the first answer; a window
 * that was too late says who answered, and every window closes the form when the
 * question is answered or the server stops waiting.
 */
export function ElicitationHost() {
  const client = useClient();
  const { route } = useRouter();
  const { data } = useTopic(client.stores.elicitations);
  const sessions = useSessionList().data?.sessions;
  const [failure, setFailure] = useState<{ id: string; error: AppError } | null>(null);
  const [notice, setNotice] = useState<AppError | null>(null);

  const pending = data?.requests ?? [];
  const current = route.name === "session" ? route.id : null;
  const request = pending.find((r) => r.sessionId && r.sessionId === current) ?? pending[0] ?? null;

  const answer = async (action: ElicitationAction, content: Record<string, unknown>) => {
    if (!request) return;
    try {
      await client.elicitations.answer(request.id, action, content, windowId());
      setFailure(null);
    } catch (e) {
      const err = toAppError(e);
      if (SETTLED.has(err.code)) setNotice(err);
      else setFailure({ id: request.id, error: err });
    }
  };

  const sessionId = request?.sessionId;
  const title = sessionId ? sessions?.find((s) => s.id === sessionId)?.title : undefined;

  return (
    <>
      {request && (
        <ElicitationDialog
          key={request.id}
          request={request}
          onAnswer={answer}
          error={failure?.id === request.id ? failure.error : undefined}
          context={<RequestContext testId="elicitation-context" sessionId={sessionId} title={title} count={pending.length} />}
        />
      )}
      <NoticeToast testId="elicitation-notice" notice={notice} onClose={() => setNotice(null)} />
    </>
  );
}

import { useEffect, useState } from "react";
import { toAppError, useClient, useSessionList, useTopic, type AppError, type ApprovalChoice } from "../api";
import { useRouter } from "../shell/router";
import { windowId } from "../shell/windowId";
import { ApprovalDialog } from "./ApprovalDialog";
import { NoticeToast, RequestContext } from "./RequestHostParts";

/** Codes that mean "someone (or something) already ended this request". */
const SETTLED = new Set(["approval_already_decided", "approval_not_found", "approval_interrupted"]);

/**
 * Shows the approval dialog in every window while any request is pending (APPR-1): the
 * open session's request first, else the oldest. The backend decides who wins; when this
 * window was too late, it says what was decided and where. The window title carries the
 * number of pending requests.
 */
export function ApprovalHost() {
  const client = useClient();
  const { route } = useRouter();
  const { data } = useTopic(client.stores.approvals);
  const sessions = useSessionList().data?.sessions;
  const [failure, setFailure] = useState<{ id: string; error: AppError } | null>(null);
  const [notice, setNotice] = useState<AppError | null>(null);

  const pending = data?.requests ?? [];
  const current = route.name === "session" ? route.id : null;
  const request = pending.find((r) => r.sessionId === current) ?? pending[0] ?? null;
  const count = pending.length;

  useEffect(() => {
    const base = document.title.replace(/^\(\d+\) /, "");
    document.title = count > 0 ? `(${count}) ${base}` : base;
  }, [count]);

  const decide = async (choice: ApprovalChoice, reason: string) => {
    if (!request) return;
    try {
      await client.approvals.decide(request.id, choice, reason, windowId());
      setFailure(null);
    } catch (e) {
      const err = toAppError(e);
      if (SETTLED.has(err.code)) setNotice(err);
      else setFailure({ id: request.id, error: err });
    }
  };

  const title = request ? sessions?.find((s) => s.id === request.sessionId)?.title : undefined;

  return (
    <>
      {request && (
        <ApprovalDialog
          key={request.id}
          request={request}
          onDecide={decide}
          error={failure?.id === request.id ? failure.error : undefined}
          context={<RequestContext testId="approval-context" sessionId={request.sessionId} title={title} count={count} />}
        />
      )}
      <NoticeToast testId="approval-notice" notice={notice} onClose={() => setNotice(null)} />
    </>
  );
}

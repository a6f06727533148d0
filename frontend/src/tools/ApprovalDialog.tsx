import { useId, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { useToolsets, type ApprovalChoice, type ApprovalEdit, type ApprovalRequest } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useDeliberateKeys, type DeliberatePress } from "../components/useDeliberateKeys";
import { prettyJSON, toolIcon, toolsetLabel } from "./model";
import { useApprovalReason } from "./reason";
import { countHidden, Visible, visibleString } from "./visible";

export interface ApprovalDialogProps {
  request: ApprovalRequest | null;
  /** Sends the decision; a rejection (e.g. approval_already_decided) is shown in the dialog. */
  onDecide: (choice: ApprovalChoice, reason: string) => Promise<void>;
  /** An error from the last decision (rendered with ErrorView). */
  error?: unknown;
  /** Where the request comes from (session, queue), shown above the details. */
  context?: ReactNode;
}

interface DiffLine {
  /** + added, - removed, " " context, @ the start of a hunk (its text is the header). */
  sign: "+" | "-" | " " | "@";
  text: string;
}

/** A change as the dialog shows it: its lines and, from a preview, what is known of it. */
interface Change {
  path?: string;
  lines: DiffLine[];
  added?: number;
  removed?: number;
  created?: boolean;
  /** the file already holds what the call would leave in it */
  unchanged?: boolean;
  truncated?: boolean;
  unshown?: string;
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);

/** A unified diff's lines, without its file headers (a CRLF file's \r dropped). */
export function unifiedLines(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  for (const raw of diff.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.startsWith("--- ") || line.startsWith("+++ ") || line === "" || line.startsWith("\\")) continue;
    const sign = line[0];
    if (line.startsWith("@@")) out.push({ sign: "@", text: line });
    else if (sign === "+" || sign === "-" || sign === " ") out.push({ sign, text: line.slice(1) });
  }
  return out;
}

/**
 * A built-in tool's edits, as it says them: the preview's diff against the file as it is
 * when there is one, else its old and new text as -/+ lines (the first edit's path heads them).
 */
export function changeOfEdits(edits: readonly ApprovalEdit[] | undefined): Change | null {
  if (!edits?.length) return null;
  const first = edits[0]!;
  if (first.diff || first.unshown || first.created || first.unchanged) {
    return {
      path: first.path,
      lines: edits.flatMap((e) => (e.diff ? unifiedLines(e.diff) : [])),
      added: first.added,
      removed: first.removed,
      created: first.created,
      unchanged: first.unchanged,
      truncated: first.truncated,
      unshown: first.unshown,
    };
  }
  const lines = edits.flatMap((e) => [
    ...(e.old ? e.old.split("\n").map((text) => ({ sign: "-" as const, text })) : []),
    ...e.new.split("\n").map((text) => ({ sign: "+" as const, text })),
  ]);
  return { path: first.path, lines };
}

/**
 * The change an MCP tool's edit or write call seems to make, guessed from its argument
 * names (Cairn does not know an MCP tool's arguments), as +/- lines.
 */
export function changeOf(args: unknown): Change | null {
  if (!args || typeof args !== "object") return null;
  const a = args as Record<string, unknown>;
  const path = str(a.path) ?? str(a.file_path) ?? str(a.filePath) ?? str(a.file);
  const oldText = str(a.old_string) ?? str(a.oldText) ?? str(a.old_text) ?? str(a.search);
  const newText = str(a.new_string) ?? str(a.newText) ?? str(a.new_text) ?? str(a.replace);
  if (oldText !== undefined && newText !== undefined) {
    return {
      path,
      lines: [...oldText.split("\n").map((text) => ({ sign: "-" as const, text })), ...newText.split("\n").map((text) => ({ sign: "+" as const, text }))],
    };
  }
  const content = str(a.content) ?? str(a.contents) ?? str(a.text);
  if (path && content !== undefined) return { path, lines: content.split("\n").map((text) => ({ sign: "+" as const, text })) };
  return null;
}

/**
 * The approval dialog (APPR-3): shows what the call will do — the tool and its server,
 * the exact command, the change for edits and writes, the paths and URLs, whether it is
 * destructive — and sends one decision. Enter allows once, Esc denies; focus is trapped by
 * Dialog. "For this session" / "always" are offered only when the backend can make a rule.
 * Enter and Space decide only when pressed deliberately (useDeliberateKeys): typing that
 * was meant for the composer when the dialog opened decides nothing.
 */
export function ApprovalDialog({ request, onDecide, error, context }: ApprovalDialogProps) {
  const { t } = useTranslation("chat");
  const allowRef = useRef<HTMLButtonElement>(null);
  const reasonId = useId();
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const reasonOf = useApprovalReason();
  const keys = useDeliberateKeys(request?.id ?? null, (press) => onPress(press));
  const toolsets = useToolsets();

  if (!request) return null;
  const label = request.title || request.tool;
  const nsLabel = toolsetLabel(toolsets, request.namespace);
  const args = typeof request.args === "string" ? request.args : JSON.stringify(request.args ?? {});
  const change = request.guessed
    ? changeOf(typeof request.args === "string" ? safeParse(request.args) : request.args)
    : changeOfEdits(request.edits);
  const touches = request.touches ?? {};
  const canRule = (request.rules ?? []).length > 0;
  const shownArgs = prettyJSON(args) ?? args;
  // Characters that would hide or reorder text, in anything the dialog shows of the call.
  const hidden = [request.tool, request.server ?? "", request.agent?.name ?? "", shownArgs, touches.cwd ?? "", ...(touches.commands ?? []), ...(touches.paths ?? []), ...(touches.urls ?? []), ...(change?.lines.map((l) => l.text) ?? [])].reduce(
    (n, s) => n + countHidden(s),
    0,
  );

  const decide = async (choice: ApprovalChoice) => {
    if (busy) return;
    setBusy(true);
    try {
      await onDecide(choice, choice === "deny" ? reason.trim() : "");
    } finally {
      setBusy(false);
    }
  };

  // What a deliberate key press means: a focused button (or disclosure) is clicked, as the
  // browser would have; Enter elsewhere allows once.
  const onPress = ({ key, target, shiftKey }: DeliberatePress) => {
    if (target.tagName === "BUTTON" || target.tagName === "SUMMARY" || target.tagName === "A") {
      target.click();
      return;
    }
    if (key === "Enter" && !shiftKey) void decide("allow_once");
  };

  return (
    <Dialog
      open
      role="alertdialog"
      closeOnBackdrop={false}
      onClose={() => void decide("deny")}
      initialFocusRef={allowRef}
      testId="approval-dialog"
      size="wide"
      {...keys}
      title={t("approval.title", { tool: visibleString(request.server ? `${request.server} › ${label}` : label) })}
      description={reasonOf(request) || undefined}
      footer={
        <>
          <button type="button" className="btn btn--danger-quiet" disabled={busy} onClick={() => void decide("deny")} data-testid="approval-deny">
            {t("approval.deny")}
          </button>
          <span className="spacer" />
          {canRule && (
            <>
              <button type="button" className="btn" disabled={busy} onClick={() => void decide("allow_always")} data-testid="approval-always">
                {t("approval.always")}
              </button>
              <button type="button" className="btn" disabled={busy} onClick={() => void decide("allow_session")} data-testid="approval-session">
                {t("approval.session")}
              </button>
            </>
          )}
          <button ref={allowRef} type="button" className="btn btn--primary" disabled={busy} onClick={() => void decide("allow_once")} data-testid="approval-allow">
            {t("approval.once")}
          </button>
        </>
      }
    >
      <div className="approval">
        {context}
        <p className="approval__tool">
          <span className="tool-card__ns" aria-hidden="true">
            <Icon name={toolIcon(toolsets, request.namespace)} size={15} />
          </span>
          <code>
            <Visible text={request.tool} />
          </code>
          {nsLabel && <span className="muted">· {t(nsLabel)}</span>}
        </p>
        {request.agent && (
          <p className="approval__agent" data-testid="approval-agent">
            <Icon name="users" size={15} />
            {t("agent.from", { name: visibleString(request.agent.name) })}
          </p>
        )}
        {hidden > 0 && (
          <p className="approval__warn" data-testid="approval-hidden-warning">
            <Icon name="alert" size={15} />
            {t("approval.hidden", { count: hidden })}
          </p>
        )}
        {request.destructive && (
          <p className="approval__warn" data-testid="approval-destructive">
            <Icon name="alert" size={15} />
            {t("approval.destructive")}
          </p>
        )}
        {request.namespace === "sandbox" && request.askReasonCode === "hook_asks" && (
          <p className="approval__warn" data-testid="approval-unsandboxed">
            <Icon name="alert" size={15} />
            {t("sandbox.approvalUnsandboxed")}
          </p>
        )}
        {(touches.commands ?? []).length > 0 && (
          <section>
            <h3 className="approval__label">{t("approval.command")}</h3>
            {touches.commands!.map((c, i) => (
              <pre key={i} className="tool-card__pre approval__command visible-text" data-testid="approval-command">
                <Visible text={c} />
              </pre>
            ))}
            {touches.cwd && <p className="muted approval__cwd">{t("approval.cwd", { cwd: visibleString(touches.cwd) })}</p>}
          </section>
        )}
        {change && (
          <section>
            <h3 className="approval__label">{change.path ? t("approval.changeOf", { path: visibleString(change.path) }) : t("approval.change")}</h3>
            <ChangeNotes change={change} />
            {change.lines.length > 0 && (
              <pre className="tool-card__pre approval__diff visible-text" data-testid="approval-diff">
                {change.lines.map((l, i) => (
                  <span key={i} className={DIFF_CLASS[l.sign]}>
                    {l.sign === "@" ? l.text : <>{l.sign} <Visible text={l.text} /></>}
                    {"\n"}
                  </span>
                ))}
              </pre>
            )}
          </section>
        )}
        {((touches.paths ?? []).length > 0 || (touches.urls ?? []).length > 0) && (
          <section>
            <h3 className="approval__label">{t("approval.touches")}</h3>
            <ul className="approval__targets" data-testid="approval-targets">
              {(touches.paths ?? []).map((p) => (
                <li key={`p:${p}`}>
                  <Icon name="file" size={13} />{" "}
                  <code>
                    <Visible text={p} />
                  </code>
                </li>
              ))}
              {(touches.urls ?? []).map((u) => (
                <li key={`u:${u}`}>
                  <Icon name="globe" size={13} />{" "}
                  <code>
                    <Visible text={u} />
                  </code>
                </li>
              ))}
            </ul>
          </section>
        )}
        <details className="tool-card__section" open={!change && !(touches.commands ?? []).length}>
          <summary>{t("tools.arguments")}</summary>
          <pre className="tool-card__pre visible-text" data-testid="approval-args">
            <Visible text={shownArgs} />
          </pre>
        </details>
        <label htmlFor={reasonId} className="approval__label">
          {t("approval.reason")}
        </label>
        <textarea
          id={reasonId}
          className="input textarea approval__reason"
          value={reason}
          placeholder={t("approval.reasonPlaceholder")}
          onChange={(e) => setReason(e.target.value)}
          data-testid="approval-reason"
        />
        <p className="field__help">{t("approval.keys")}</p>
        {error ? <ErrorView error={error} compact /> : null}
      </div>
    </Dialog>
  );
}

const DIFF_CLASS: Record<DiffLine["sign"], string> = { "+": "diff-add", "-": "diff-del", " ": "diff-ctx", "@": "diff-hunk" };

/** What a preview says of a change besides its lines: counts, a new file, a cut or no diff. */
function ChangeNotes({ change }: { change: Change }) {
  const { t } = useTranslation("chat");
  const notes = [
    change.created ? t("approval.diff.created") : "",
    change.unchanged ? t("approval.diff.unchanged") : "",
    (change.added ?? 0) + (change.removed ?? 0) > 0 ? t("approval.diff.counts", { added: change.added ?? 0, removed: change.removed ?? 0 }) : "",
    change.truncated ? t("approval.diff.truncated") : "",
    change.unshown ? t(`approval.diff.unshown.${change.unshown === "binary" ? "binary" : "tooLarge"}`) : "",
  ].filter(Boolean);
  if (notes.length === 0) return null;
  return (
    <p className="muted approval__diff-notes" data-testid="approval-diff-notes">
      {notes.join(" · ")}
    </p>
  );
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

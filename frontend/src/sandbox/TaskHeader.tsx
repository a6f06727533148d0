import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useClient, type SessionWorkspace } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { useAppInfo } from "../shell/appInfo";
import { Visible } from "../tools/visible";
import { levelClass, SandboxHolds, useSandboxStatus } from "./SandboxStatus";

/** The last folder name of a path, for a short label (the whole path is its title). */
export function folderName(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** Published on the session's topic when its workspace changes (sandbox.EventWorkspace). */
const WORKSPACE_EVENT = "sandbox:workspace";

/**
 * A task session's header pieces: its workspace (a button that changes it) and a badge with
 * the sandbox's level, whose popover says what holds.
 */
export function TaskHeader({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const { status } = useSandboxStatus();
  const [ws, setWs] = useState<SessionWorkspace | null>(null);
  const [popover, setPopover] = useState(false);
  const [editing, setEditing] = useState(false);
  const popId = useId();
  const wrap = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let live = true;
    client.sandbox.workspace(sessionId).then(
      (w) => live && setWs(w),
      () => live && setWs(null),
    );
    // another window (or the CLI) may choose a new workspace: the header follows
    const off = client.transport.subscribe((ev) => {
      if (ev.topic === `session:${sessionId}` && ev.type === WORKSPACE_EVENT) setWs(ev.data as SessionWorkspace);
    });
    return () => {
      live = false;
      off();
    };
  }, [client, sessionId]);

  useEffect(() => {
    if (!popover) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setPopover(false);
    const onDown = (e: MouseEvent) => wrap.current && !wrap.current.contains(e.target as Node) && setPopover(false);
    document.addEventListener("keydown", onKey);
    document.addEventListener("mousedown", onDown);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("mousedown", onDown);
    };
  }, [popover]);

  return (
    <div className="task-header" ref={wrap}>
      {ws && (
        <button
          type="button"
          className="badge task-header__workspace"
          title={t("sandbox.workspaceTitle", { path: ws.path })}
          onClick={() => setEditing(true)}
          data-testid="task-workspace"
          data-path={ws.path}
        >
          <Icon name="file" size={12} />
          <Visible text={folderName(ws.path)} />
        </button>
      )}
      {status && (
        <button
          type="button"
          className={`badge task-header__level ${levelClass(status.level)}`}
          aria-expanded={popover}
          aria-controls={popId}
          onClick={() => setPopover((o) => !o)}
          data-testid="sandbox-badge"
          data-level={status.level}
        >
          <Icon name="shield" size={12} />
          {t(`sandbox.level.${status.level}`)}
          {status.level === "none" && status.unsandboxed && ` · ${t("sandbox.unsandboxed")}`}
        </button>
      )}
      {popover && status && (
        <div id={popId} className="task-header__popover" role="dialog" aria-label={t("sandbox.statusTitle")} data-testid="sandbox-popover">
          <p className="task-header__popover-title">{t("sandbox.statusTitle")}</p>
          <SandboxHolds status={status} />
        </div>
      )}
      {editing && ws && <WorkspaceDialog sessionId={sessionId} current={ws} onClose={() => setEditing(false)} onSaved={setWs} />}
    </div>
  );
}

/**
 * Changing a task session's workspace: a folder typed in (or, in the desktop window,
 * picked with the native folder dialog), or a new one of its own.
 */
function WorkspaceDialog({
  sessionId,
  current,
  onClose,
  onSaved,
}: {
  sessionId: string;
  current: SessionWorkspace;
  onClose: () => void;
  onSaved: (w: SessionWorkspace) => void;
}) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const [dir, setDir] = useState(current.made ? "" : current.path);
  const id = useId();
  const desktop = useAppInfo().info?.desktop === true;
  const choose = useAction(async () => {
    const picked = await client.system.chooseFolder(t("sandbox.workspaceChooseTitle"));
    if (picked) setDir(picked);
  });
  const save = useAction(async (folder: string) => {
    onSaved(await client.sandbox.setWorkspace(sessionId, folder));
    onClose();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run(dir.trim());
  };
  return (
    <Dialog
      open
      onClose={onClose}
      title={t("sandbox.workspaceDialog")}
      description={t("sandbox.workspaceHelp")}
      testId="workspace-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={() => void save.run("")} disabled={save.busy} data-testid="workspace-new">
            {t("sandbox.workspaceNew")}
          </button>
          <button type="submit" form={`${id}-form`} className="btn btn--primary" disabled={save.busy || dir.trim() === ""} data-testid="workspace-save">
            {t("sandbox.workspaceUse")}
          </button>
        </>
      }
    >
      <form id={`${id}-form`} className="task-header__form" onSubmit={submit}>
        <Field id={id} label={t("sandbox.workspaceFolder")} help={t("sandbox.workspaceCurrent", { path: current.path })}>
          <div className="input-row">
            <input id={id} className="input" value={dir} onChange={(e) => setDir(e.currentTarget.value)} placeholder="/home/me/project" data-testid="workspace-path" />
            {desktop && (
              <button type="button" className="btn btn--small" disabled={choose.busy} onClick={() => void choose.run()} data-testid="workspace-choose">
                {t("sandbox.workspaceChoose")}
              </button>
            )}
          </div>
        </Field>
      </form>
      {choose.error && <ErrorView error={choose.error} compact />}
      {save.error && <ErrorView error={save.error} />}
    </Dialog>
  );
}

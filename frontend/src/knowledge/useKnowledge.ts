import { useCallback, useEffect, useRef, useState } from "react";
import {
  applyKbProgress,
  KB_TOPIC,
  kbFilesTopic,
  toAppError,
  useClient,
  type AppError,
  type KbFile,
  type KbFolder,
  type KbProgress,
  type KbReembedProgress,
  type KnowledgeBase,
} from "../api";

/** How long a burst of events waits before the lists are loaded again. */
const RELOAD_MS = 150;

export interface KnowledgeData {
  kbs: KnowledgeBase[] | null;
  files: KbFile[];
  folders: KbFolder[];
  /** The last re-embed report of each base (progress, or the error it paused on). */
  reembed: Record<string, KbReembedProgress>;
  error: AppError | null;
  reload: () => void;
}

/**
 * The knowledge bases, and the files and folders of the selected one, kept current from
 * the kb topics: a file's progress is folded in place (events are coalesced by the
 * backend), anything else reloads the lists after a short pause.
 */
export function useKnowledge(selected: string | null): KnowledgeData {
  const client = useClient();
  const [kbs, setKbs] = useState<KnowledgeBase[] | null>(null);
  const [files, setFiles] = useState<KbFile[]>([]);
  const [folders, setFolders] = useState<KbFolder[]>([]);
  const [reembed, setReembed] = useState<Record<string, KbReembedProgress>>({});
  const [error, setError] = useState<AppError | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const gen = useRef(0);

  const load = useCallback(async () => {
    const g = ++gen.current;
    try {
      const [list, fs, fos] = await Promise.all([
        client.kb.list(),
        selected ? client.kb.files(selected) : Promise.resolve([]),
        selected ? client.kb.folders(selected) : Promise.resolve([]),
      ]);
      if (g !== gen.current) return;
      setKbs(list);
      setFiles(fs);
      setFolders(fos);
      setError(null);
    } catch (e) {
      if (g === gen.current) setError(toAppError(e));
    }
  }, [client, selected]);

  const reload = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      void load();
    }, RELOAD_MS);
  }, [load]);

  useEffect(() => {
    void load();
    const offEvents = client.transport.subscribe((ev) => {
      if (ev.topic === KB_TOPIC) {
        if (ev.type === "kb:reembed") {
          const p = ev.data as KbReembedProgress;
          setReembed((r) => ({ ...r, [p.kbId]: p }));
          if (p.finished) reload();
        } else if (ev.type === "kb:changed") reload();
        return;
      }
      if (selected && ev.topic === kbFilesTopic(selected) && ev.type === "kb:file") {
        const p = ev.data as KbProgress;
        let missing = false;
        setFiles((cur) => {
          const next = applyKbProgress(cur, p);
          missing = next === null;
          return next ?? cur;
        });
        if (missing || p.state === "done" || p.state === "error") reload();
      }
    });
    const offReconnect = client.transport.onReconnect(() => void load());
    return () => {
      offEvents();
      offReconnect();
      if (timer.current) clearTimeout(timer.current);
    };
  }, [client, selected, load, reload]);

  return { kbs, files, folders, reembed, error, reload };
}

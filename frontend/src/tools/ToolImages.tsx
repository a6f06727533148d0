import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useOptionalClient, type ToolImageRef } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { formatBytes } from "./model";
import { useSessionApprovals } from "./sessionApprovals";
import "./toolImages.css";

type Loaded = { kind: "loading" } | { kind: "ready"; url: string } | { kind: "error"; error: unknown } | { kind: "none" };

/**
 * Loads a saved tool image as a data: URL from the backend (GetToolImage): the window
 * never loads an image from anywhere else.
 */
function useToolImage(file: string, full: boolean, on: boolean): Loaded {
  const client = useOptionalClient();
  const session = useSessionApprovals()?.sessionId;
  const [state, setState] = useState<Loaded>({ kind: "loading" });
  const reachable = Boolean(client && session);
  useEffect(() => {
    if (!on || !client || !session) return;
    let live = true;
    setState({ kind: "loading" });
    client.tools.image(session, file, full).then(
      (url) => live && setState({ kind: "ready", url }),
      (error: unknown) => live && setState({ kind: "error", error }),
    );
    return () => {
      live = false;
    };
  }, [client, session, file, full, on]);
  // Outside a conversation (no session to ask for it) the card names the image only.
  return reachable ? state : { kind: "none" };
}

/** The images a tool returned: thumbnails; a click shows one whole in a dialog. */
export function ToolImages({ images }: { images: ToolImageRef[] }) {
  const [open, setOpen] = useState<ToolImageRef | null>(null);
  return (
    <div className="tool-images" data-testid="tool-images">
      {images.map((img, i) => (
        <Thumbnail key={img.file} img={img} index={i} onOpen={() => setOpen(img)} />
      ))}
      {open && <FullImage img={open} onClose={() => setOpen(null)} />}
    </div>
  );
}

function describe(img: ToolImageRef, t: (k: string, o?: Record<string, unknown>) => string): string {
  const size = formatBytes(img.bytes);
  return img.width ? t("tools.image.describe", { width: img.width, height: img.height ?? 0, size }) : size;
}

function Thumbnail({ img, index, onOpen }: { img: ToolImageRef; index: number; onOpen: () => void }) {
  const { t } = useTranslation("chat");
  const state = useToolImage(img.file, false, true);
  const label = t("tools.image.open", { n: index + 1, what: describe(img, t) });
  if (state.kind === "none") {
    return (
      <figure className="tool-images__item">
        <figcaption className="muted">{describe(img, t)}</figcaption>
      </figure>
    );
  }
  return (
    <figure className="tool-images__item">
      <button type="button" className="tool-images__thumb" onClick={onOpen} title={label} aria-label={label} data-testid="tool-image">
        {state.kind === "ready" ? <img src={state.url} alt="" /> : <span className="muted">{state.kind === "loading" ? t("tools.image.loading") : "!"}</span>}
      </button>
      <figcaption className="muted">{describe(img, t)}</figcaption>
      {state.kind === "error" && <ErrorView error={state.error} compact />}
    </figure>
  );
}

function FullImage({ img, onClose }: { img: ToolImageRef; onClose: () => void }) {
  const { t } = useTranslation("chat");
  const state = useToolImage(img.file, true, true);
  return (
    <Dialog open onClose={onClose} title={t("tools.image.title")} description={describe(img, t)} size="wide" testId="tool-image-full">
      <div className="tool-images__full">
        {state.kind === "ready" && <img src={state.url} alt={t("tools.image.title")} data-testid="tool-image-full-img" />}
        {state.kind === "loading" && <p className="muted">{t("tools.image.loading")}</p>}
        {state.kind === "error" && <ErrorView error={state.error} compact />}
      </div>
      <p className="tool-card__note">{img.path}</p>
    </Dialog>
  );
}

import type { Attachment, ChatApi } from "../api";

/** A request body is bounded: files go up in parts of this size (base64 stays under 8 MiB). */
export const UPLOAD_PART = 4 << 20;

function toBase64(bytes: Uint8Array): string {
  let out = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) {
    out += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(out);
}

/** The bytes of a blob (FileReader where Blob.arrayBuffer is missing: older WebViews, jsdom). */
function readBytes(b: Blob): Promise<Uint8Array> {
  if (typeof b.arrayBuffer === "function") return b.arrayBuffer().then((x) => new Uint8Array(x));
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(new Uint8Array(r.result as ArrayBuffer));
    r.onerror = () => reject(r.error ?? new Error("read failed"));
    r.readAsArrayBuffer(b);
  });
}

/**
 * Sends a picked, dropped or pasted file to the backend's attachment store in parts and
 * resolves with what it stored; rejects with the file's own AppError (too large, damaged,
 * encrypted, a type Cairn cannot read).
 */
export async function uploadAttachment(chat: Pick<ChatApi, "uploadAttachment">, file: Blob, name: string): Promise<Attachment> {
  let uploadId = "";
  for (let at = 0; ; at += UPLOAD_PART) {
    const part = await readBytes(file.slice(at, at + UPLOAD_PART));
    const last = at + UPLOAD_PART >= file.size;
    const res = await chat.uploadAttachment(name, uploadId, toBase64(part), last);
    uploadId = res.uploadId;
    if (last) {
      if (!res.attachment) throw new Error(`no attachment stored for ${name}`);
      return res.attachment;
    }
  }
}

/** A pasted image has no useful name ("image.png" every time): it gets the time it came. */
export function pastedName(file: File, now = new Date()): string {
  if (file.name && file.name !== "image.png") return file.name;
  const ext = file.type.split("/")[1] ?? "png";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `pasted-${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}.${ext}`;
}

/** The type a chip shows: the extension people know, else the media type's subtype. */
export function typeLabel(a: Pick<Attachment, "name" | "mime">): string {
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(a.name)?.[1];
  if (ext) return ext.toUpperCase();
  return (a.mime ?? "").split("/")[1]?.toUpperCase() ?? "";
}

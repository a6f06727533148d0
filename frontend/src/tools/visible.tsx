import { Fragment, type ReactNode } from "react";
import "./visible.css";

/**
 * Text a model or a server chose, shown so that what the user reads is what runs: every
 * character that would be invisible, reorder what is around it, or act on a terminal is
 * shown as a ⟨U+XXXX⟩ badge instead of itself. The characters themselves never reach the
 * DOM, so a right-to-left override cannot turn `exe.txt` into what looks like `txt.exe`,
 * and a zero-width space cannot split a word unseen.
 */

/** Names of the characters most used to hide text (the badge's tooltip). */
const NAMES: Record<number, string> = {
  0x00: "NULL",
  0x07: "BELL",
  0x08: "BACKSPACE",
  0x0b: "LINE TABULATION",
  0x0c: "FORM FEED",
  0x0d: "CARRIAGE RETURN",
  0x1b: "ESCAPE",
  0x7f: "DELETE",
  0x9b: "CONTROL SEQUENCE INTRODUCER",
  0xad: "SOFT HYPHEN",
  0x034f: "COMBINING GRAPHEME JOINER",
  0x061c: "ARABIC LETTER MARK",
  0x180e: "MONGOLIAN VOWEL SEPARATOR",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x2028: "LINE SEPARATOR",
  0x2029: "PARAGRAPH SEPARATOR",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0x3164: "HANGUL FILLER",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
};

/**
 * Whether a code point is shown as a badge: C0 and C1 controls but tab and newline, the
 * bidirectional controls, zero-width and other default-ignorable characters (joiners,
 * invisible operators, fillers, interlinear annotations), tag characters and the
 * variation selectors beyond the emoji ones (both able to carry hidden text), line and
 * paragraph separators, and noncharacters or unpaired surrogates.
 */
export function isHidden(cp: number): boolean {
  if (cp === 0x09 || cp === 0x0a) return false;
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0xad ||
    cp === 0x034f ||
    cp === 0x061c ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    cp === 0x180e ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2028 && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    cp === 0x3164 ||
    (cp >= 0xd800 && cp <= 0xdfff) ||
    (cp >= 0xfdd0 && cp <= 0xfdef) ||
    cp === 0xfeff ||
    cp === 0xffa0 ||
    (cp >= 0xfff0 && cp <= 0xfffb) ||
    (cp & 0xfffe) === 0xfffe ||
    (cp >= 0x1bca0 && cp <= 0x1bca3) ||
    (cp >= 0x1d173 && cp <= 0x1d17a) ||
    (cp >= 0xe0000 && cp <= 0xe0fff)
  );
}

/** ⟨U+202E⟩: how a hidden character is written. */
export function badgeOf(cp: number): string {
  return `⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

export type Segment = { text: string } | { cp: number };

/** Splits text into runs of plain text and the hidden characters between them. */
export function segments(text: string): Segment[] {
  const out: Segment[] = [];
  let run = "";
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    if (isHidden(cp)) {
      if (run) out.push({ text: run });
      run = "";
      out.push({ cp });
    } else {
      run += text.slice(i, i + len);
    }
    i += len;
  }
  if (run) out.push({ text: run });
  return out;
}

/** How many hidden characters text holds. */
export function countHidden(text: string): number {
  let n = 0;
  for (const s of segments(text)) if ("cp" in s) n++;
  return n;
}

/** text with every hidden character written as its badge, for places that take a string (titles, tooltips). */
export function visibleString(text: string): string {
  return segments(text)
    .map((s) => ("cp" in s ? badgeOf(s.cp) : s.text))
    .join("");
}

/**
 * text as it is, hidden characters as badges. A carriage return or a separator also ends
 * its line, as a terminal would move on: what follows it is on a line of its own, not
 * drawn over what came before. Used inside a wrapping <pre> (.visible-text): nothing is cut.
 */
export function Visible({ text }: { text: string }): ReactNode {
  return (
    <>
      {segments(text).map((s, i) =>
        "cp" in s ? (
          <Fragment key={i}>
            <span
              className="invisible-char"
              data-testid="invisible-char"
              data-cp={s.cp.toString(16)}
              title={NAMES[s.cp] ? `U+${s.cp.toString(16).toUpperCase().padStart(4, "0")} ${NAMES[s.cp]}` : undefined}
            >
              {badgeOf(s.cp)}
            </span>
            {(s.cp === 0x0d || s.cp === 0x2028 || s.cp === 0x2029) && "\n"}
          </Fragment>
        ) : (
          <Fragment key={i}>{s.text}</Fragment>
        ),
      )}
    </>
  );
}

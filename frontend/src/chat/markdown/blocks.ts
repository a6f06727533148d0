/**
 * Splits Markdown into top-level blocks at blank lines that are outside fenced code and
 * `$$` math, so a streaming message re-parses only its last block: finished blocks keep
 * their text and their memoized rendering.
 *
 * A block that starts indented (a list item's continuation, indented code) stays with the
 * block before it, and text with reference-style definitions (links, footnotes) is not
 * split at all, because those resolve across the whole document.
 */
export function splitBlocks(text: string): string[] {
  if (/^ {0,3}\[[^\]\n]+\]:/m.test(text)) return [text];
  const lines = text.split("\n");
  const blocks: string[] = [];
  let cur: string[] = [];
  let fence: string | null = null;
  let math = false;
  let blank = false;

  const flush = () => {
    if (cur.length === 0) return;
    blocks.push(cur.join("\n"));
    cur = [];
  };

  for (const line of lines) {
    if (fence !== null) {
      cur.push(line);
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) fence = null;
      continue;
    }
    if (math) {
      cur.push(line);
      if (/\$\$\s*$/.test(line)) math = false;
      continue;
    }
    if (line.trim() === "") {
      blank = true;
      cur.push(line);
      continue;
    }
    if (blank) {
      blank = false;
      // A new block starts here unless it continues the previous one (indented).
      if (!/^\s/.test(line)) {
        // keep trailing blank lines with the block they end (stable text while streaming)
        flush();
      }
    }
    cur.push(line);
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (open) {
      fence = open[1]!;
      continue;
    }
    const t = line.trim();
    if (t.startsWith("$$") && !(t.length > 2 && t.endsWith("$$"))) math = true;
  }
  flush();
  return blocks;
}

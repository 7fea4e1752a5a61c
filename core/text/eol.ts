/** A line ending a file can be written with. */
export type LineEnding = "\n" | "\r\n";

/**
 * The dominant line ending: CRLF when CRLF pairs outnumber bare LFs, otherwise LF (ties and files without
 * any line break included). A lone CR is not a line ending.
 */
export function detectLineEnding(text: string): LineEnding {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

/** Replaces every CRLF pair with LF. Lone CRs stay as they are. */
export function normalizeLineEndings(text: string): string {
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text;
}

/** Writes the LFs of LF-normalized text with `eol`. */
export function applyLineEnding(text: string, eol: LineEnding): string {
  return eol === "\n" ? text : text.replaceAll("\n", "\r\n");
}

/** True when the text ends with a line break (LF or CRLF). */
export function endsWithNewline(text: string): boolean {
  return text.endsWith("\n");
}

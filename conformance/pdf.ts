// Small PDFs written by hand for the read tool's cases: one font, one text line per page, a classic xref.

/** A PDF with one page per entry, each showing its text (ASCII without parentheses or backslashes) on one line; "" leaves the page blank. */
export function minimalPdf(pages: readonly string[], options: { readonly encrypt?: boolean } = {}): Uint8Array {
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"];
  const kids: string[] = [];
  for (const text of pages) {
    const stream = text === "" ? "" : `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
    kids.push(`${objects.length + 1} 0 R`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length + 2} 0 R >>`,
      `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    );
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pages.length} >>`;
  // The standard security handler with a user password that the empty one does not match.
  const hex = (byte: number) => `<${byte.toString(16).padStart(2, "0").repeat(32)}>`;
  const encrypt = options.encrypt ? ` /Encrypt << /Filter /Standard /V 1 /R 2 /O ${hex(0xab)} /U ${hex(0xcd)} /P -4 >> /ID [${hex(1)} ${hex(1)}]` : "";
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

import { assertEquals } from "../assert.ts";
import { minimalPdf } from "../pdf.ts";
import type { ConformanceGroup } from "../suite.ts";
import { utf8 } from "../util.ts";
import { excludes, fails, includes, ok, toolkit } from "./tools-support.ts";

const THREE = ["First page text", "Second page text", "Third page text"];
// 40 characters each: with its header a page costs 55 characters, 57 after the first.
const FORTY = ["A", "B", "C", "D"].map((letter) => `Page ${letter} `.padEnd(40, letter.toLowerCase()));

/** read of a PDF: its text per page through unpdf, a page range, the character budget and coded refusals. */
export const toolsReadPdfGroup: ConformanceGroup = {
  name: "tool-read-pdf",
  cases: [
    {
      name: "a PDF reads as text per page under page headers, with the end-of-document footer",
      async run(subject) {
        await subject.probe.writeFile("doc.pdf", minimalPdf(THREE));
        const result = await ok(toolkit(subject), "read", { path: "doc.pdf" });
        assertEquals(
          result.content,
          "--- page 1 ---\nFirst page text\n\n--- page 2 ---\nSecond page text\n\n--- page 3 ---\nThird page text\n\n(End of document: 3 pages.)",
        );
        assertEquals(result.meta, { path: "doc.pdf", format: "pdf", firstPage: 1, lastPage: 3, totalPages: 3, truncated: false });
      },
    },
    {
      name: "pages picks one page, a range or the rest, and the footer names the pages after them",
      async run(subject) {
        await subject.probe.writeFile("doc.pdf", minimalPdf(THREE));
        const kit = toolkit(subject);
        assertEquals(
          (await ok(kit, "read", { path: "doc.pdf", pages: "2" })).content,
          '--- page 2 ---\nSecond page text\n\n(Page 2 of 3. Continue with pages="3".)',
        );
        assertEquals(
          (await ok(kit, "read", { path: "doc.pdf", pages: "1-2" })).content,
          '--- page 1 ---\nFirst page text\n\n--- page 2 ---\nSecond page text\n\n(Pages 1-2 of 3. Continue with pages="3".)',
        );
        const rest = await ok(kit, "read", { path: "doc.pdf", pages: "2-" });
        assertEquals(rest.content, "--- page 2 ---\nSecond page text\n\n--- page 3 ---\nThird page text\n\n(End of document: 3 pages.)");
        assertEquals((await ok(kit, "read", { path: "doc.pdf", pages: "3-9" })).meta.lastPage, 3);
      },
    },
    {
      name: "a blank page says it has no text",
      async run(subject) {
        await subject.probe.writeFile("scan.pdf", minimalPdf(["", "words"]));
        includes(
          (await ok(toolkit(subject), "read", { path: "scan.pdf" })).content,
          "--- page 1 ---\n(no text on this page: it may be a scanned image)\n\n--- page 2 ---\nwords",
        );
      },
    },
    {
      name: "a page past the end fails FS_NOT_FOUND and states the page count; a malformed range is an argument error",
      async run(subject) {
        await subject.probe.writeFile("doc.pdf", minimalPdf(THREE));
        const kit = toolkit(subject);
        includes((await fails(kit, "read", { path: "doc.pdf", pages: "4" }, "FS_NOT_FOUND")).content, "it has 3 pages; use pages from 1 to 3");
        for (const pages of ["0", "3-2", "two", "1,3", "", "-2", 2]) await fails(kit, "read", { path: "doc.pdf", pages }, "TOOL_INVALID_ARGUMENTS");
      },
    },
    {
      name: "pages fill a character budget and the footer says where to continue; reading on gets the rest",
      async run(subject) {
        await subject.probe.writeFile("doc.pdf", minimalPdf(FORTY));
        const kit = toolkit(subject, { limits: { readBytes: 120 } });
        const first = await ok(kit, "read", { path: "doc.pdf" });
        assertEquals(
          first.content,
          `--- page 1 ---\n${FORTY[0]}\n\n--- page 2 ---\n${FORTY[1]}\n\n(Output capped at the character limit: pages 1-2 of 4 shown. Continue with pages="3-4".)`,
        );
        assertEquals([first.meta.lastPage, first.meta.truncated], [2, true]);
        const next = await ok(kit, "read", { path: "doc.pdf", pages: "3-4" });
        assertEquals(next.content, `--- page 3 ---\n${FORTY[2]}\n\n--- page 4 ---\n${FORTY[3]}\n\n(End of document: 4 pages.)`);
        includes((await ok(kit, "read", { path: "doc.pdf", pages: "2-4" })).content, 'pages 2-3 of 4 shown. Continue with pages="4".');
      },
    },
    {
      name: "a page larger than the whole budget is cut with a visible marker and the footer says so",
      async run(subject) {
        await subject.probe.writeFile("doc.pdf", minimalPdf(FORTY));
        const result = await ok(toolkit(subject, { limits: { readBytes: 30 } }), "read", { path: "doc.pdf", pages: "1-2" });
        assertEquals(
          result.content,
          `--- page 1 ---\n${FORTY[0]!.slice(0, 15)} … [page 1 cut at 15 of 40 characters]\n\n` +
            '(Output capped at the character limit: page 1 cut at 15 characters; read cannot show the rest of that page. Continue with pages="2".)',
        );
      },
    },
    {
      name: "a PDF is recognised by its content, whatever its name, and text that mentions %PDF- is still text",
      async run(subject) {
        await subject.probe.writeFile("notes.txt", minimalPdf(["hidden pdf"]));
        await subject.probe.writeFile("plain.pdf", "not %PDF- at the start\n");
        const kit = toolkit(subject);
        includes((await ok(kit, "read", { path: "notes.txt" })).content, "--- page 1 ---\nhidden pdf\n");
        assertEquals((await ok(kit, "read", { path: "plain.pdf" })).content, "1: not %PDF- at the start\n\n(End of file: 1 line.)");
      },
    },
    {
      name: "pages on a text file, or offset and limit on a PDF, are argument errors that say what to use",
      async run(subject) {
        await subject.probe.writeFile("a.txt", "x\n");
        await subject.probe.writeFile("doc.pdf", minimalPdf(THREE));
        const kit = toolkit(subject);
        includes((await fails(kit, "read", { path: "a.txt", pages: "1" }, "TOOL_INVALID_ARGUMENTS")).content, "PDF files only");
        includes((await fails(kit, "read", { path: "doc.pdf", offset: 2 }, "TOOL_INVALID_ARGUMENTS")).content, "pages");
        includes((await fails(kit, "read", { path: "doc.pdf", limit: 5 }, "TOOL_INVALID_ARGUMENTS")).content, "pages");
      },
    },
    {
      name: "a corrupt or encrypted PDF fails FS_NOT_TEXT saying which, without a stack",
      async run(subject) {
        await subject.probe.writeFile("broken.pdf", utf8("%PDF-1.4\nthis is not a PDF body\n"));
        await subject.probe.writeFile("cut.pdf", minimalPdf(THREE).slice(0, 200));
        await subject.probe.writeFile("locked.pdf", minimalPdf(["secret"], { encrypt: true }));
        const kit = toolkit(subject);
        for (const path of ["broken.pdf", "cut.pdf"]) {
          const result = await fails(kit, "read", { path }, "FS_NOT_TEXT");
          includes(result.content, `Cannot read "${path}": the PDF cannot be parsed`);
          excludes(result.content, "    at ");
        }
        const locked = await fails(kit, "read", { path: "locked.pdf" }, "FS_NOT_TEXT");
        includes(locked.content, "encrypted");
        excludes(locked.content, "secret", "    at ");
      },
    },
    {
      name: "a PDF over the size limit fails FS_TOO_LARGE before it is parsed",
      async run(subject) {
        const bytes = minimalPdf(THREE);
        await subject.probe.writeFile("doc.pdf", bytes);
        let loaded = 0;
        const kit = toolkit(subject, { limits: { readPdfBytes: bytes.length - 1 }, pdf: () => (loaded++, Promise.reject(new Error("not loaded"))) });
        includes((await fails(kit, "read", { path: "doc.pdf" }, "FS_TOO_LARGE")).content, `has ${bytes.length} bytes`);
        assertEquals(loaded, 0);
      },
    },
    {
      name: "without the PDF library, reading a PDF fails TOOL_UNAVAILABLE naming the package to install; text still reads",
      async run(subject) {
        await subject.probe.writeFile("doc.pdf", minimalPdf(THREE));
        await subject.probe.writeFile("a.txt", "x\n");
        const missing = () => Promise.reject(Object.assign(new Error("Cannot find package 'unpdf'"), { code: "ERR_MODULE_NOT_FOUND" }));
        const kit = toolkit(subject, { pdf: missing });
        const result = await fails(kit, "read", { path: "doc.pdf" }, "TOOL_UNAVAILABLE");
        includes(result.content, "optional package unpdf, which is not installed", "npm install unpdf");
        const broken = await fails(toolkit(subject, { pdf: () => Promise.reject(new Error("bad build")) }), "read", { path: "doc.pdf" }, "TOOL_UNAVAILABLE");
        includes(broken.content, "which did not load (bad build)");
        await ok(kit, "read", { path: "a.txt" });
      },
    },
    {
      name: "a PDF read counts as read for write's read-before-write guard",
      async run(subject) {
        await subject.probe.writeFile("doc.pdf", minimalPdf(THREE));
        const kit = toolkit(subject);
        await fails(kit, "write", { path: "doc.pdf", content: "replaced\n" }, "FS_NOT_OBSERVED");
        await ok(kit, "read", { path: "doc.pdf", pages: "1" });
        await ok(kit, "write", { path: "doc.pdf", content: "replaced\n" });
      },
    },
  ],
};

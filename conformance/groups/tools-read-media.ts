import { assertEquals } from "../assert.ts";
import { base64, gif, jpeg, png, webp } from "../media.ts";
import type { ConformanceGroup } from "../suite.ts";
import { utf8 } from "../util.ts";
import { fails, includes, ok, toolkit } from "./tools-support.ts";

const notebook = (cells: unknown[]): string => JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 });

/** read of images (known by their bytes) and Jupyter notebooks (docs/notes/0024-read-media.md). */
export const toolsReadMediaGroup: ConformanceGroup = {
  name: "tool-read-media",
  cases: [
    {
      name: "a PNG, JPEG, GIF and WebP each come back as an image part with its media type and a line of words",
      async run(subject) {
        const files = { "a.png": png(640, 480), "b.jpg": jpeg(100, 50), "c.gif": gif(3, 2), "d.webp": webp(300, 200) };
        for (const [name, bytes] of Object.entries(files)) await subject.probe.writeFile(name, bytes);
        const kit = toolkit(subject);
        const expected = [
          ["a.png", "image/png", "PNG image, 640x480 pixels"],
          ["b.jpg", "image/jpeg", "JPEG image, 100x50 pixels"],
          ["c.gif", "image/gif", "GIF image, 3x2 pixels"],
          ["d.webp", "image/webp", "WebP image, 300x200 pixels"],
        ] as const;
        for (const [name, mediaType, words] of expected) {
          const result = await ok(kit, "read", { path: name });
          const bytes = files[name].length;
          assertEquals(result.content, `${name}: ${words}, ${bytes} bytes.`);
          assertEquals(result.parts, [{ type: "image", data: base64(files[name]), mediaType, alt: `${name}: ${words}, ${bytes} bytes` }]);
        }
      },
    },
    {
      name: "an image is known by its bytes: a PNG named .txt is an image; a text named .png, or one that begins like a GIF, is text; a broken image is a binary file",
      async run(subject) {
        await subject.probe.writeFile("shot.txt", png(2, 2));
        await subject.probe.writeFile("fake.png", "not an image\n");
        await subject.probe.writeFile("notes.txt", "GIF89a is a format;");
        await subject.probe.writeFile("cut.png", png(4, 4).subarray(0, 20));
        await subject.probe.writeFile("zero.gif", gif(0, 5));
        const kit = toolkit(subject);
        assertEquals((await ok(kit, "read", { path: "shot.txt" })).parts?.[0]?.type, "image");
        const text = await ok(kit, "read", { path: "fake.png" });
        assertEquals(text.content, "1: not an image\n\n(End of file: 1 line.)");
        assertEquals(text.parts, undefined);
        assertEquals((await ok(kit, "read", { path: "notes.txt" })).content, "1: GIF89a is a format;\n\n(End of file: 1 line.)");
        for (const path of ["cut.png", "zero.gif"]) {
          assertEquals((await fails(kit, "read", { path }, "FS_NOT_TEXT")).content, `Cannot read "${path}": it looks like a binary file`);
        }
      },
    },
    {
      name: "an image over a bound is refused FS_TOO_LARGE, stating its size and the bound",
      async run(subject) {
        await subject.probe.writeFile("wide.png", png(8001, 10));
        await subject.probe.writeFile("many.png", png(7000, 7000));
        await subject.probe.writeFile("heavy.png", png(10, 10, 6 * 1024 * 1024));
        const kit = toolkit(subject);
        includes((await fails(kit, "read", { path: "wide.png" }, "FS_TOO_LARGE")).content, "8001x10 pixels, over the 8000-pixel limit on a side");
        includes((await fails(kit, "read", { path: "many.png" }, "FS_TOO_LARGE")).content, "over the 40000000-pixel limit");
        includes((await fails(kit, "read", { path: "heavy.png" }, "FS_TOO_LARGE")).content, "over the 5242880-byte limit for images");
      },
    },
    {
      name: "a notebook reads as numbered cells with bounded outputs, its images as image parts",
      async run(subject) {
        const figure = png(4, 4);
        const stream = Array.from({ length: 25 }, (_, i) => `row ${i + 1}\n`);
        await subject.probe.writeFile(
          "nb.ipynb",
          notebook([
            { cell_type: "markdown", metadata: {}, source: ["# Title\n", "Some words"] },
            {
              cell_type: "code",
              execution_count: 3,
              metadata: {},
              source: "print(rows)",
              outputs: [
                { output_type: "stream", name: "stdout", text: stream },
                { output_type: "display_data", metadata: {}, data: { "image/png": base64(figure), "text/plain": ["<Figure>"] } },
                { output_type: "error", ename: "ValueError", evalue: "bad value", traceback: [] },
              ],
            },
          ]),
        );
        const result = await ok(toolkit(subject), "read", { path: "nb.ipynb" });
        assertEquals(
          result.content,
          [
            "[1] markdown\n# Title\nSome words",
            [
              "[2] code (execution 3)",
              "print(rows)",
              "[2] output:",
              ...stream.slice(0, 20).map((line) => line.trimEnd()),
              "… [output cut: 5 more lines of 25]",
              `[2] image/png output: PNG image, 4x4 pixels, ${figure.length} bytes (an image part)`,
              "[2] error: ValueError: bad value",
            ].join("\n"),
            "(End of notebook: 2 cells.)",
          ].join("\n\n"),
        );
        assertEquals(result.parts, [
          { type: "image", data: base64(figure), mediaType: "image/png", alt: `cell 2 output: PNG image, 4x4 pixels, ${figure.length} bytes` },
        ]);
      },
    },
    {
      name: "offset and limit count a notebook's cells, and the footer names the next offset",
      async run(subject) {
        await subject.probe.writeFile("nb.ipynb", notebook(Array.from({ length: 5 }, (_, i) => ({ cell_type: "code", source: `x = ${i + 1}`, outputs: [] }))));
        const kit = toolkit(subject);
        assertEquals(
          (await ok(kit, "read", { path: "nb.ipynb", offset: 2, limit: 2 })).content,
          "[2] code\nx = 2\n\n[3] code\nx = 3\n\n(Cells 2-3 of 5. Continue with offset=4.)",
        );
        await fails(kit, "read", { path: "nb.ipynb", offset: 6 }, "FS_NOT_FOUND");
      },
    },
    {
      name: "a .ipynb that is not a notebook is refused FS_NOT_TEXT, saying why",
      async run(subject) {
        await subject.probe.writeFile("a.ipynb", "not json");
        await subject.probe.writeFile("b.ipynb", utf8(JSON.stringify({ worksheets: [] })));
        await subject.probe.writeFile("c.ipynb", notebook([{ cell_type: "code" }]));
        const kit = toolkit(subject);
        includes((await fails(kit, "read", { path: "a.ipynb" }, "FS_NOT_TEXT")).content, "not a valid Jupyter notebook (not JSON)");
        includes((await fails(kit, "read", { path: "b.ipynb" }, "FS_NOT_TEXT")).content, "no cells list");
        includes((await fails(kit, "read", { path: "c.ipynb" }, "FS_NOT_TEXT")).content, "cell 1 has no cell_type or source");
      },
    },
  ],
};

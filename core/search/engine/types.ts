// ripgrep's `--type` filter (`-t NAME`): a file is searched when its name matches one of the selected types'
// globs. Types are judged after overrides and ignore files, and only for files: a type match brings back a
// hidden file (as an ignore file's whitelist does), never a hidden directory's contents.
import { SearchError } from "../errors.ts";
import { compileGlob, type GlobMatcher } from "./glob.ts";
import { byteString } from "./text.ts";
import { RIPGREP_TYPES } from "./type-list.ts";

/** What the type filter says about a file: searched, left out, or no filter. */
export type TypeMatch = "include" | "exclude" | undefined;

export interface TypeFilter {
  match(name: string, isDir: boolean): TypeMatch;
}

/** The globs of `name`, ripgrep's pseudo-type `all` being every type's. */
function globsOf(name: string): readonly string[] | undefined {
  if (name === "all") return Object.values(RIPGREP_TYPES).flat();
  return Object.hasOwn(RIPGREP_TYPES, name) ? RIPGREP_TYPES[name] : undefined;
}

/** Fails SEARCH_INVALID_PATTERN with ripgrep's message for a name it does not know; ripgrep's backend checks first too. */
export function checkTypes(types: readonly string[] | undefined): void {
  for (const name of types ?? []) {
    if (globsOf(name) === undefined) {
      throw new SearchError("SEARCH_INVALID_PATTERN", `unrecognized file type: ${name}`, { details: { type: name } });
    }
  }
}

/** The filter for `types`; undefined when none is selected. */
export function compileTypes(types: readonly string[] | undefined): TypeFilter | undefined {
  if (!types || types.length === 0) return undefined;
  checkTypes(types);
  const matchers: GlobMatcher[] = [];
  for (const name of new Set(types)) for (const glob of globsOf(name) ?? []) matchers.push(compileGlob(glob));
  return {
    match(name, isDir) {
      if (isDir) return undefined;
      const bytes = byteString(name);
      return matchers.some((m) => m.test(bytes)) ? "include" : "exclude";
    },
  };
}

/** Reads `rg --type-list` output (`name: glob, glob`, one type a line) into a table. */
export function parseTypeList(text: string): Record<string, string[]> {
  const table: Record<string, string[]> = {};
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const colon = line.indexOf(": ");
    if (colon === -1) throw new Error(`not a type line: ${JSON.stringify(line)}`);
    table[line.slice(0, colon)] = line.slice(colon + 2).split(", ");
  }
  return table;
}

// Type-checked by `deno check` only: fails when the real Deno namespace stops fitting the local slice.
import type { DenoApi } from "./deno-api.ts";

export const realDenoFitsSlice: DenoApi = Deno;

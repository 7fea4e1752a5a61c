// The model seam: what the agent hands a model each step, and what it gets back. A real model client and the
// scripted driver below implement the same interface, so scenarios replay without a network or a key.
import { z } from "zod";
import { CodedError, type ToolDefinition } from "../../core/mod.ts";

/** One tool call a model asked for. */
export interface ModelToolCall {
  /** Unique within the session; it becomes the ACP toolCallId. */
  readonly id: string;
  readonly name: string;
  readonly arguments: unknown;
  /**
   * The model's argument text when it was not a JSON object: the call is answered with an error instead of
   * being run, and the text goes back to the provider as the model sent it.
   */
  readonly invalidArguments?: string;
}

/** The conversation so far, as the model is shown it. */
export type ModelMessage =
  | { readonly role: "user"; readonly text: string }
  | { readonly role: "assistant"; readonly text: string; readonly toolCalls: readonly ModelToolCall[] }
  | {
      readonly role: "tool";
      readonly callId: string;
      readonly content: string;
      readonly isError: boolean;
      /** The failure's stable code (`FS_NOT_FOUND`, `PERMISSION_REJECTED`, ...), shown to the model with the text. */
      readonly code?: string;
    };

/** One step's request: the header (system prompt and tools) and the messages. */
export interface ModelRequest {
  readonly system: string;
  readonly tools: readonly ToolDefinition[];
  readonly messages: readonly ModelMessage[];
  readonly signal: AbortSignal;
  /** Called with each piece of reply text as it streams in; a driver that does not stream never calls it. */
  readonly onText?: (delta: string) => Promise<void>;
  /** Called with each piece of reasoning text a provider streams apart from the reply. */
  readonly onThought?: (delta: string) => Promise<void>;
}

/** Tokens one request used, as the provider reported them. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens served from the provider's prompt cache, when it says. */
  readonly cachedInputTokens?: number;
}

/** One step's reply. No tool calls ends the turn, with `stopReason` (default `end_turn`). */
export interface ModelReply {
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  readonly stopReason?: "end_turn" | "max_tokens" | "refusal";
  /** Absent when the provider did not report it. */
  readonly usage?: ModelUsage;
}

export interface Model {
  next(request: ModelRequest): Promise<ModelReply>;
  /**
   * The model was trained to change code with `apply_patch` (OpenAI's GPT and Codex models): a composition that
   * says so (`Composition.applyPatch`) offers it that tool.
   */
  readonly applyPatch?: boolean;
  /** The context window in tokens, when known: the agent elides old tool output to stay within it. */
  readonly contextWindow?: number;
}

export const MODEL_ERROR_CODES = [
  "MODEL_SCRIPT_INVALID",
  "MODEL_SCRIPT_EXHAUSTED",
  "MODEL_UNAVAILABLE",
  /** `--model` names no known provider, or no model. */
  "MODEL_SPEC_INVALID",
  /** The provider's key is not in the environment. */
  "MODEL_KEY_MISSING",
  /** 401 or 403: the key was refused. */
  "MODEL_AUTH_FAILED",
  /** Any other 4xx: the request was refused, and sending it again would not help. */
  "MODEL_REQUEST_REJECTED",
  /** 429, still after the retries. */
  "MODEL_RATE_LIMITED",
  /** 5xx (and 529), still after the retries. */
  "MODEL_SERVER_ERROR",
  /** No HTTP response at all (refused connection, reset, DNS), still after the retries. */
  "MODEL_NETWORK_ERROR",
  /** The response stream broke the wire protocol, or carried an error event. */
  "MODEL_STREAM_INVALID",
] as const;

export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[number];

/** A model that could not answer, or a script that cannot be replayed. */
export class ModelError extends CodedError<ModelErrorCode> {
  override readonly name = "ModelError";
}

/** A replayable conversation: the model's replies, in order. */
export interface Script {
  /** Play a model trained on `apply_patch` (Model.applyPatch). */
  readonly applyPatch?: boolean | undefined;
  readonly turns: readonly {
    readonly text?: string | undefined;
    readonly toolCalls?: readonly { readonly name: string; readonly arguments: Record<string, unknown> }[] | undefined;
    readonly stopReason?: "end_turn" | "max_tokens" | "refusal" | undefined;
  }[];
}

const scriptSchema: z.ZodType<Script> = z
  .object({
    applyPatch: z.boolean().optional(),
    turns: z
      .array(
        z
          .object({
            text: z.string().optional(),
            toolCalls: z.array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }).strict()).optional(),
            stopReason: z.enum(["end_turn", "max_tokens", "refusal"]).optional(),
          })
          .strict()
          .refine((turn) => turn.text !== undefined || (turn.toolCalls?.length ?? 0) > 0, "a turn needs text or toolCalls"),
      )
      .min(1),
  })
  .strict();

/** Parses a script's JSON text; MODEL_SCRIPT_INVALID says what is wrong and where. */
export function parseScript(text: string): Script {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ModelError("MODEL_SCRIPT_INVALID", `The script is not JSON: ${(error as Error).message}`);
  }
  const parsed = scriptSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "script"}: ${issue.message}`);
    throw new ModelError("MODEL_SCRIPT_INVALID", `The script is not valid: ${problems.join("; ")}`);
  }
  return parsed.data;
}

/**
 * A model that replays a script. The reply to a request is the turn after the ones already in its messages,
 * so replay depends only on the conversation: every session starts at the first turn, and a second prompt in
 * a session continues where the first ended.
 */
export function createScriptedModel(script: Script): Model {
  return {
    ...(script.applyPatch ? { applyPatch: true } : {}),
    async next({ messages }) {
      const index = messages.filter((m) => m.role === "assistant").length;
      const turn = script.turns[index];
      if (!turn) throw new ModelError("MODEL_SCRIPT_EXHAUSTED", `The script has ${script.turns.length} turns and this session has used them all`);
      const toolCalls = (turn.toolCalls ?? []).map((call, i) => ({ id: `call_${index + 1}_${i + 1}`, name: call.name, arguments: call.arguments }));
      return { text: turn.text ?? "", toolCalls, ...(turn.stopReason ? { stopReason: turn.stopReason } : {}) };
    },
  };
}

/** A tool result as a driver sends it to a provider: failures carry their code, so the model can act on it. */
export function toolResultText(message: Extract<ModelMessage, { role: "tool" }>): string {
  const content = message.content === "" ? "(no output)" : message.content;
  return message.isError ? `Error ${message.code ?? "TOOL_FAILED"}: ${content}` : content;
}

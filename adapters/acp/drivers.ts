// `PROVIDER:MODEL` to a model driver, with its key from the environment: what `toolfs acp --model` and the
// library's createModel share.
import { ANTHROPIC_BASE_URL, createAnthropicModel } from "./anthropic.ts";
import type { HttpDriverOptions, RetryOptions } from "./http.ts";
import { type Model, ModelError } from "./model.ts";
import { createOpenAIModel, OPENAI_BASE_URL } from "./openai.ts";

export type ProviderName = "openai" | "anthropic";

/** How `PROVIDER:` in a model spec is served. */
export interface Provider {
  readonly create: (options: HttpDriverOptions) => Model;
  readonly baseUrl: string;
  readonly keyEnv: string;
  /** Tokens, when the caller names none: a budget for the provider's current models. */
  readonly contextWindow: number;
}

export const PROVIDERS: Readonly<Record<ProviderName, Provider>> = {
  openai: { create: createOpenAIModel, baseUrl: OPENAI_BASE_URL, keyEnv: "OPENAI_API_KEY", contextWindow: 128_000 },
  anthropic: { create: createAnthropicModel, baseUrl: ANTHROPIC_BASE_URL, keyEnv: "ANTHROPIC_API_KEY", contextWindow: 200_000 },
};

export interface ModelSpecOptions {
  /** The API root; the provider's own by default. Any OpenAI-compatible server works with `openai:`. */
  readonly baseUrl?: string;
  /** The key itself; otherwise it is read from the environment. */
  readonly apiKey?: string;
  /** The variable holding the key; default OPENAI_API_KEY or ANTHROPIC_API_KEY. */
  readonly apiKeyEnv?: string;
  /** Reads an environment variable; without it no key is read. */
  readonly env?: (name: string) => string | undefined;
  readonly contextWindow?: number;
  readonly maxTokens?: number;
  readonly retry?: RetryOptions;
  readonly fetch?: typeof fetch;
  readonly log?: (line: string) => void;
}

/** Splits `openai:gpt-4.1` at the first colon (model names may contain colons, as Ollama's `qwen3:8b`). */
export function parseModelSpec(spec: string): { readonly provider: ProviderName; readonly model: string } {
  const colon = spec.indexOf(":");
  const provider = colon === -1 ? spec : spec.slice(0, colon);
  const model = colon === -1 ? "" : spec.slice(colon + 1);
  if (!(provider in PROVIDERS)) {
    throw new ModelError(
      "MODEL_SPEC_INVALID",
      `--model takes PROVIDER:MODEL with PROVIDER one of ${Object.keys(PROVIDERS).join(", ")}; got ${JSON.stringify(spec)}`,
    );
  }
  if (model.trim() === "") throw new ModelError("MODEL_SPEC_INVALID", `--model ${JSON.stringify(spec)} names no model; write ${provider}:MODEL`);
  return { provider: provider as ProviderName, model };
}

/**
 * The model `spec` names. The key comes from `apiKey`, else from the environment; a missing key is an error
 * for the provider's own API (or when `apiKeyEnv` names an unset variable), and no key at all is sent to
 * another base URL, since local servers take none.
 */
export function createModel(spec: string, options: ModelSpecOptions = {}): Model {
  const { provider, model } = parseModelSpec(spec);
  const chosen = PROVIDERS[provider];
  const keyEnv = options.apiKeyEnv ?? chosen.keyEnv;
  const key = options.apiKey ?? nonEmpty(options.env?.(keyEnv));
  if (key === undefined && (options.apiKeyEnv !== undefined || options.baseUrl === undefined)) {
    throw new ModelError(
      "MODEL_KEY_MISSING",
      `${provider} needs an API key: set ${keyEnv}${options.apiKeyEnv === undefined ? " (or name another variable with --api-key-env)" : ""}`,
    );
  }
  return chosen.create({
    model,
    baseUrl: options.baseUrl ?? chosen.baseUrl,
    contextWindow: options.contextWindow ?? chosen.contextWindow,
    ...(key === undefined ? {} : { apiKey: key }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

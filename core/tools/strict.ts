// Tool schemas for consumers that only accept "strict" JSON Schema (OpenAI's structured tool calls): every
// property required and no others allowed. An optional property becomes a required one that may be null, and
// a null the model sends for it is dropped again before the toolkit sees the arguments.

/** A strict variant of a tool's input schema, and the mapping of its arguments back. */
export interface StrictToolSchema {
  readonly schema: Record<string, unknown>;
  /** The arguments the toolkit expects: nulls given for formerly optional properties removed. */
  toInput(args: unknown): unknown;
}

/** The strict variant of a flat object schema, as `createToolkit` definitions have. */
export function strictToolSchema(inputSchema: Readonly<Record<string, unknown>>): StrictToolSchema {
  const properties = (inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((inputSchema.required ?? []) as string[]);
  const optional = Object.keys(properties).filter((name) => !required.has(name));
  const strictProperties: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (required.has(name)) {
      strictProperties[name] = property;
      continue;
    }
    const { description, ...rest } = property;
    strictProperties[name] = {
      ...(description === undefined ? {} : { description: `${String(description)}; null for the default` }),
      anyOf: [rest, { type: "null" }],
    };
  }
  return {
    schema: { ...inputSchema, properties: strictProperties, required: Object.keys(properties), additionalProperties: false },
    toInput(args) {
      if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
      const input = { ...(args as Record<string, unknown>) };
      for (const name of optional) if (input[name] === null) delete input[name];
      return input;
    },
  };
}

// The stress factor of this repository's conformance runs, from TOOLFS_STRESS (docs/notes/0011): unset or empty
// means the suite's default, 1, which CI runs; a value that is not a number is refused here, naming the variable,
// and the suite refuses one that is not positive.
export function stressOption(value: string | undefined): { readonly stress?: number } {
  if (value === undefined || value === "") return {};
  const stress = Number(value);
  if (Number.isNaN(stress)) throw new RangeError(`TOOLFS_STRESS must be a number, such as 0.25, 1 or 4; got ${JSON.stringify(value)}`);
  return { stress };
}

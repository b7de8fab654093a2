/**
 * A statement with named parameters: `:name` in the text becomes `$n` (the same name, the same
 * number; a `::type` cast is no parameter), and `values({name: value})` lists the values in that
 * order. The text is built once, so it stays the same for every call (PostgreSQL keeps plans by
 * text); only the names the text uses get a number, so a variant that leaves one out sends no
 * untyped parameter.
 */
export interface NamedStatement<Params extends object> {
  /** The text with `$1`, `$2`, … in place of the names. */
  text: string;
  /** The names in the order of their numbers. */
  names: string[];
  /** The values of the names, in the order of their numbers; a name the text uses without a value is an error. */
  values(params: Params): unknown[];
}

const NAME = /(?<![:\w]):([a-z_][a-z0-9_]*)/g;

export function named<Params extends object>(sql: string): NamedStatement<Params> {
  const names: string[] = [];
  const text = sql.replace(NAME, (_, name: string) => {
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return {
    text,
    names,
    values(params) {
      return names.map((name) => {
        const value = (params as Record<string, unknown>)[name];
        if (value === undefined) throw new Error(`The statement's parameter :${name} has no value`);
        return value;
      });
    },
  };
}

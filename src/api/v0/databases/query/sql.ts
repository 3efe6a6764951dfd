// The two primitives every compiled statement is built from: quoted identifiers and bind
// parameters. No caller-supplied text ever reaches SQL any other way.

export interface Statement {
  text: string
  /** text-format parameters, typed by the server from their context (never interpolated) */
  values: (string | null)[]
}

/** A double-quoted identifier; embedded quotes are doubled. Only names read from the catalog reach here. */
export function ident(name: string): string {
  return '"' + name.replaceAll('"', '""') + '"'
}

export function qualified(schema: string, name: string): string {
  return ident(schema) + '.' + ident(name)
}

export class Params {
  readonly values: (string | null)[] = []
  /** Binds `value` and returns its placeholder (`$1`, `$2`, ...). */
  add(value: string | null): string {
    this.values.push(value)
    return '$' + this.values.length
  }
}

/**
 * The rows of `source` (a subquery or CTE name aliased as `alias`) as one compact JSON array text,
 * in the source's order; `[]` when empty. `alias.*` (not `alias`) so that a column named like the
 * alias cannot shadow the whole-row reference.
 */
export function jsonRows(alias: string): string {
  return `coalesce('[' || string_agg(row_to_json(${alias}.*)::text, ',') || ']', '[]')`
}

// Errors of the query language. A QueryError is a 400 that names the query parameter at fault.
// (Validation errors of limit/offset are pydantic-shaped 422s instead, see params.ts.)
import { AppError } from '../../../../infra/errors.js'

export class QueryError extends AppError {
  constructor(
    readonly param: string,
    readonly reason: string,
  ) {
    super('bad_request', `invalid query parameter "${param}": ${reason}`)
  }
}

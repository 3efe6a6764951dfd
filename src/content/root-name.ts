import { z } from 'zod'

/** The name of a root type (the editor's XML fragment `default` when absent). */
export const rootName = z
  .string({ error: 'root must be the name of a root type (1-200 characters)' })
  .min(1, { error: 'root must be the name of a root type (1-200 characters)' })
  .max(200, { error: 'root must be the name of a root type (1-200 characters)' })

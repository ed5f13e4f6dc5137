// Which zod a schema comes from. agentlog needs zod 4 schemas (zod is a peer dependency, so the
// application's zod 4 is the one agentlog uses); a zod 3 schema, from zod 3 or from `zod/v3`,
// gets an error that says so and how to import zod 4, instead of a puzzling "not a schema".
import type { z } from 'zod'
import { AgentError, describe } from './errors.js'

/** A zod 4 schema (classic or mini), whichever copy of zod made it. */
export const isZod4Schema = (schema: unknown): schema is z.ZodType =>
  typeof schema === 'object' && schema !== null && '_zod' in schema && typeof (schema as { safeParse?: unknown }).safeParse === 'function'

/** Throws INVALID_OPTION unless `schema` is a zod 4 schema; `where` names the caller for the message. */
export const checkZod4Schema = (schema: unknown, where: string): void => {
  if (isZod4Schema(schema)) return
  if (typeof schema === 'object' && schema !== null && '_def' in schema && typeof (schema as { safeParse?: unknown }).safeParse === 'function')
    throw new AgentError('INVALID_OPTION', `${where}: this is a zod 3 schema; agentlog needs zod 4. Install zod 4 (npm install zod@^4) and write import { z } from 'zod' (not 'zod/v3').`)
  throw new AgentError('INVALID_OPTION', `${where}: input must be a zod 4 schema such as z.object({...}) (import { z } from 'zod'); received ${describe(schema)}.`)
}

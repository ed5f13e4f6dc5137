// Structured output, the way AgentScope does it: a built-in tool, `GenerateStructuredOutput`, whose
// input schema is the output schema. A call that passes validation succeeds, and its arguments are
// the value (the reply slice keeps them; the planner ends the reply there). A call that fails
// validation is an `error` result the model can correct. Until the value is there, every model
// call is preceded by a reminder hint (HINT_ADDED: in the log and the context, not streamed), and
// from maxIters on the tool is forced, for STRUCTURED_OUTPUT_GRACE_ITERS more rounds. The texts the
// model reads are AgentScope's, word for word, so a conversation reads the same on both.
import { z } from 'zod'
import { AgentError, describe } from '../core/errors.js'
import type { Msg } from '../core/messages.js'
import { findNonJson } from './options.js'
import { STRUCTURED_OUTPUT_TOOL } from '../../reducers/structuredOutput.js'
import { defineTool, type Tool } from './tools.js'
import { isZod4Schema } from '../core/zodSchema.js'

export { STRUCTURED_OUTPUT_TOOL, structuredOutputOf } from '../../reducers/structuredOutput.js'

/** A reply's message whose `structured_output` is typed from the output schema (null: no value). */
export type StructuredMsg<T> = Omit<Msg, 'structured_output'> & { structured_output: T | null }

/** Refuses an output schema that cannot be a tool's input: a zod schema of an object. */
export const checkOutputSchema = (schema: unknown, where: string): void => {
  if (!isZod4Schema(schema))
    throw new AgentError('INVALID_OPTION', `${where}: output must be a zod object schema such as z.object({ answer: z.string() }); received ${describe(schema)}.`)
  let type: unknown
  try {
    type = (z.toJSONSchema(schema, { io: 'input' }) as { type?: unknown }).type
  } catch (error) {
    throw new AgentError('INVALID_OPTION', `${where}: the output schema cannot be written as JSON Schema (${(error as Error).message}); use JSON types only.`)
  }
  if (type !== 'object') throw new AgentError('INVALID_OPTION', `${where}: output must describe an object (a tool's input is an object); received a schema of type ${JSON.stringify(type)}. Wrap it: z.object({ value: ... }).`)
}

/** The schema a reply's REPLY_START recorded, rebuilt to validate the value of a reply resumed in another process. */
export const recordedOutputSchema = (json: Record<string, unknown>): z.ZodType => {
  try {
    return z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0])
  } catch (error) {
    throw new AgentError('INVALID_LOG', `The output schema this reply's REPLY_START recorded cannot be read (${(error as Error).message}); interrupt the reply (USER_INTERRUPT) and start a new one.`)
  }
}

/** Rounds past maxIters in which the output tool is forced before the reply ends with exceed_max_iters. */
export const STRUCTURED_OUTPUT_GRACE_ITERS = 5

/** The `source` of the reminder hint (a JSON label, as AgentScope's). */
export const OUTPUT_REMINDER_SOURCE = '{"label": "System", "sublabel": "Structured Output Requirement"}'

/** The hint before a model call while the value is missing; `forced` from maxIters on. */
export const outputReminder = (tool: string, forced: boolean): string =>
  `<system-reminder>You're required to generate structured output by calling the '${tool}' tool. ${forced
    ? 'You have reached the maximum reasoning-acting iterations, so call this tool at once to generate the final structured output.'
    : 'Call it when you are ready to generate the final structured output.'}</system-reminder>`

/** The result of a call whose arguments do not match the output schema. */
/** What the model reads when the output tool's arguments fail its schema (AgentScope's text: `Input validation failed for tool 'GenerateStructuredOutput': <what was wrong>`). */
export const outputValidationError = (issue: string): string => `Input validation failed for tool '${STRUCTURED_OUTPUT_TOOL}': ${issue}`

/** The text of the message `reply()` resolves to when the value is there (the value is its `structured_output`). */
export const OUTPUT_DONE_TEXT = 'The required structured output is generated.'

/** The built-in tool for one output schema. */
export const structuredOutputTool = (schema: z.ZodType): Tool =>
  defineTool({
    name: STRUCTURED_OUTPUT_TOOL,
    description: 'Returns your final answer as structured data. Call it once, as the last step, with the answer as its arguments; they must match the schema exactly.',
    input: schema,
    concurrencySafe: true,
    execute: (value: unknown) => {
      const nonJson = findNonJson(value)
      if (nonJson) return { output: outputValidationError(`the response's ${nonJson} is not a plain JSON value; the output schema must produce JSON`), state: 'error' }
      return 'Structured output generated successfully.'
    },
  })

/** The agent's tools plus the output tool, or the agent's own tools when no value is asked for. */
export const toolsForOutput = (tools: ReadonlyMap<string, Tool>, schema: z.ZodType | null): ReadonlyMap<string, Tool> => {
  if (!schema) return tools
  if (tools.has(STRUCTURED_OUTPUT_TOOL))
    throw new AgentError('INVALID_OPTION', `The agent has its own tool named "${STRUCTURED_OUTPUT_TOOL}", the name of the structured-output tool; rename that tool to use output.`)
  return new Map([...tools, [STRUCTURED_OUTPUT_TOOL, structuredOutputTool(schema)]])
}

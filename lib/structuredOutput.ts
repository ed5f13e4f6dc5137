// Structured output, the way AgentScope does it: a built-in tool, `generate_response`, whose input
// schema is the output schema. A call that passes validation succeeds with the value in its
// result's metadata (`structured_output`); the reducers copy it onto the reply's message and the
// planner ends the reply there. A call that fails validation is an `error` result the model can
// correct. Only ordinary TOOL_CALL_* / TOOL_RESULT_* events: replay and interrupt need nothing new.
import { z } from 'zod'
import { AgentError, describe } from './errors.js'
import type { Msg } from './messages.js'
import { findNonJson } from './options.js'
import { STRUCTURED_OUTPUT_TOOL } from '../reducers/structuredOutput.js'
import { defineTool, type Tool } from './tools.js'
import { isZod4Schema } from './zodSchema.js'

export { STRUCTURED_OUTPUT_TOOL } from '../reducers/structuredOutput.js'

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

/** The built-in tool for one output schema. */
export const structuredOutputTool = (schema: z.ZodType): Tool =>
  defineTool({
    name: STRUCTURED_OUTPUT_TOOL,
    description: 'Give the final response. Call this function once you have the answer: its arguments are the response, and they must match its schema exactly.',
    input: schema,
    execute: (value: unknown) => {
      const nonJson = findNonJson(value)
      if (nonJson) return { output: `Error: the response's ${nonJson} is not a plain JSON value; the output schema must produce JSON.`, state: 'error' }
      return { output: 'Successfully generated the response.', metadata: { structured_output: value } }
    },
  })

/** The agent's tools plus the output tool, or the agent's own tools when no value is asked for. */
export const toolsForOutput = (tools: ReadonlyMap<string, Tool>, schema: z.ZodType | null): ReadonlyMap<string, Tool> => {
  if (!schema) return tools
  if (tools.has(STRUCTURED_OUTPUT_TOOL))
    throw new AgentError('INVALID_OPTION', `The agent has its own tool named "${STRUCTURED_OUTPUT_TOOL}", the name of the structured-output tool; rename that tool to use output.`)
  return new Map([...tools, [STRUCTURED_OUTPUT_TOOL, structuredOutputTool(schema)]])
}

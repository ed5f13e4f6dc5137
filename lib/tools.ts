// Tools: `defineTool` turns a zod input schema and an execute function into a tool the agent can
// offer the model. A tool may return a string, a result object, or an async iterable of text
// chunks (streamed as TOOL_RESULT_TEXT_DELTA). Permission and external execution are declared here.
import { z } from 'zod'
import { AgentError } from './errors.js'
import type { DataBlock, TextBlock } from './messages.js'
import type { ToolSpec } from './model.js'

export type Permission = 'allow' | 'ask' | 'deny'

export interface ToolContext {
  /** Aborted when the reply is interrupted: stop the work and return. */
  signal: AbortSignal
  tool_call_id: string
}

export interface ToolResultObject {
  output: string | (TextBlock | DataBlock)[]
  state?: 'success' | 'error'
  metadata?: Record<string, unknown>
}

export type ToolOutput = string | ToolResultObject | AsyncIterable<string>

export interface ToolDefinition<I extends z.ZodType> {
  name: string
  description: string
  input: I
  /** Tools that are safe to run at the same time as their neighbours in a batch (default false). */
  concurrencySafe?: boolean
  /** 'allow' (default), 'ask' (park the reply for a confirmation), 'deny', or a function of the input. */
  permission?: Permission | ((input: z.infer<I>, state: unknown) => Permission)
  /** Executed outside the agent: the reply parks with REQUIRE_EXTERNAL_EXECUTION. */
  external?: boolean
  execute?: (input: z.infer<I>, context: ToolContext) => ToolOutput | Promise<ToolOutput>
}

export interface Tool<I extends z.ZodType = z.ZodType> extends ToolDefinition<I> {
  readonly spec: ToolSpec
  readonly concurrencySafe: boolean
  readonly external: boolean
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

export const defineTool = <I extends z.ZodType>(definition: ToolDefinition<I>): Tool<I> => {
  const { name, description, input, external = false, execute } = definition
  if (typeof name !== 'string' || !TOOL_NAME.test(name))
    throw new AgentError('INVALID_OPTION', `defineTool: name must match ${TOOL_NAME} (providers require it); received ${JSON.stringify(name)}.`)
  if (!(input instanceof z.ZodType))
    throw new AgentError('INVALID_OPTION', `defineTool("${name}"): input must be a zod schema such as z.object({...}).`)
  if (external === !!execute)
    throw new AgentError('INVALID_OPTION', `defineTool("${name}"): give either execute (a local tool) or external: true (run outside the agent), not ${external ? 'both' : 'neither'}.`)
  const input_schema = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>
  delete input_schema.$schema
  return {
    ...definition,
    concurrencySafe: definition.concurrencySafe ?? false,
    external,
    spec: { name, description, input_schema },
  }
}

/** A tool the caller executes for one reply (an AG-UI front end's tool), described as JSON Schema. */
export interface CallerToolSpec {
  name: string
  description: string
  /** The JSON Schema of its input, shown to the model as given (default: any object). */
  parameters?: Record<string, unknown>
}

/** A caller's tool as an external tool: a call to it parks the reply for the caller's result. */
export const callerTool = ({ name, description, parameters }: CallerToolSpec): Tool => {
  if (typeof description !== 'string') throw new AgentError('INVALID_OPTION', `externalTools: tool "${name}" needs a description string.`)
  if (parameters !== undefined && (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)))
    throw new AgentError('INVALID_OPTION', `externalTools: the parameters of tool "${name}" must be a JSON Schema object.`)
  const tool = defineTool<z.ZodType>({ name, description, input: z.record(z.string(), z.unknown()), external: true })
  return { ...tool, spec: { name, description, input_schema: parameters ?? { type: 'object' } } }
}

// Tools: `defineTool` turns an input schema (zod, or a JSON Schema object such as an MCP tool's,
// validated through zod's `z.fromJSONSchema`) and an execute function into a tool the agent can
// offer the model; the arguments are validated before the call either way. A tool may return a string, a result object, or an async iterable of text
// chunks (streamed as TOOL_RESULT_TEXT_DELTA). Permission and external execution are declared here.
import type { Observable } from 'rxjs'
import { z } from 'zod'
import { AgentError, describe } from '../core/errors.js'
import type { DataBlock, TextBlock } from '../core/messages.js'
import type { ToolSpec } from '../models/model.js'
import { checkZod4Schema, isZod4Schema } from '../core/zodSchema.js'
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'

export type Permission = 'allow' | 'ask' | 'deny'

/** The agent running a call, as a tool sees it (an `Agent`; agentTool links its sub-agents to it). */
export interface ToolHost {
  readonly session_id: string
  readonly name: string
}

export interface ToolContext {
  /** Aborted when the reply is interrupted: stop the work and return. */
  signal: AbortSignal
  tool_call_id: string
  /** The reply and the session the call belongs to, and the agent running it (set when an agent runs the call). */
  reply_id?: string
  session_id?: string
  agent?: ToolHost
  /** The metadata recorded on the call's TOOL_RESULT_START (what the tool's `startMetadata` gave). */
  metadata?: Record<string, unknown>
}

export interface ToolResultObject {
  output: string | (TextBlock | DataBlock)[]
  /**
   * 'success' (default) or 'error'; 'interrupted' for work a user stopped elsewhere (a sub-agent);
   * 'submitted': the call is not over but waits for an EXTERNAL_EXECUTION_RESULT, as an external
   * tool's does (REQUIRE_EXTERNAL_EXECUTION is recorded, with `metadata` on that event).
   */
  state?: 'success' | 'error' | 'interrupted' | 'submitted'
  metadata?: Record<string, unknown>
}

/**
 * A string, a result object, or an async iterable of text chunks whose last item may be a result
 * object (its state and metadata end the call); or an Observable of the same, whose chunks join the
 * log as they are emitted (no promise per chunk: what a sub-agent's text takes to its parent's call).
 */
export type ToolOutput = string | ToolResultObject | AsyncIterable<string | ToolResultObject> | Observable<string | ToolResultObject>

/** A JSON Schema object describing a tool's input (`{ type: 'object', properties: ... }`). */
export type JsonSchema = Record<string, unknown>

export interface ToolDefinition<I extends z.ZodType> {
  name: string
  description: string
  /** A zod schema, or (through the JsonSchema overload) a JSON Schema. */
  input: I
  /** Tools that are safe to run at the same time as their neighbours in a batch (default false). */
  concurrencySafe?: boolean
  /** 'allow' (default), 'ask' (park the reply for a confirmation), 'deny', or a function of the input. */
  permission?: Permission | ((input: z.infer<I>, state: unknown) => Permission)
  /** Executed outside the agent: the reply parks with REQUIRE_EXTERNAL_EXECUTION. */
  external?: boolean
  execute?: (input: z.infer<I>, context: ToolContext) => ToolOutput | Promise<ToolOutput>
  /** Metadata recorded on each call's TOOL_RESULT_START, made before the tool runs (agentTool records the child's session there). */
  startMetadata?: (call: { id: string; name: string }, clock: { id(): string }) => Record<string, unknown>
  /** Releases what the tool holds (an MCP server connection); `agent.close()` calls each such function once. */
  close?: () => Promise<void> | void
}

export interface Tool<I extends z.ZodType = z.ZodType> extends ToolDefinition<I> {
  readonly spec: ToolSpec
  readonly concurrencySafe: boolean
  readonly external: boolean
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/
const TOOL_KEYS = optionKeys<ToolDefinition<z.ZodType>>({
  name: true, description: true, input: true, concurrencySafe: true, permission: true, external: true, execute: true, startMetadata: true, close: true,
})
const PERMISSIONS: readonly unknown[] = ['allow', 'ask', 'deny']

export function defineTool<I extends z.ZodType>(definition: ToolDefinition<I>): Tool<I>
export function defineTool(definition: Omit<ToolDefinition<z.ZodType<Record<string, unknown>>>, 'input'> & { input: JsonSchema }): Tool<z.ZodType<Record<string, unknown>>>
export function defineTool(definition: Omit<ToolDefinition<never>, 'input'> & { input: unknown }): Tool {
  if (typeof definition !== 'object' || definition === null) throw new AgentError('INVALID_OPTION', `defineTool expects a definition object { name, description, input, execute }; received ${describe(definition)}.`)
  const { name, description, input, external = false, execute } = definition
  checkKnownKeys(typeof name === 'string' ? `defineTool("${name}")` : 'defineTool', definition, TOOL_KEYS)
  if (typeof name !== 'string' || !TOOL_NAME.test(name))
    throw new AgentError('INVALID_OPTION', `defineTool: name must match ${TOOL_NAME} (providers require it); received ${JSON.stringify(name)}.`)
  const isZod = isZod4Schema(input)
  // A zod 3 schema gets the error that says which zod to use.
  if (!isZod && !isJsonSchemaObject(input) && typeof input === 'object' && input !== null && '_def' in input) checkZod4Schema(input, `defineTool("${name}")`)
  if (!isZod && !isJsonSchemaObject(input))
    throw new AgentError('INVALID_OPTION', `defineTool("${name}"): input must be a zod 4 schema such as z.object({...}) (import { z } from 'zod') or a JSON Schema object such as { type: 'object', properties: {...} }; received ${describe(input)}.`)
  const { permission } = definition as { permission?: unknown }
  if (permission !== undefined && typeof permission !== 'function' && !PERMISSIONS.includes(permission))
    throw new AgentError('INVALID_OPTION', `defineTool("${name}"): permission must be 'allow', 'ask', 'deny' or a function returning one of them; received ${describe(permission)}.`)
  if (external === !!execute)
    throw new AgentError('INVALID_OPTION', `defineTool("${name}"): give either execute (a local tool) or external: true (run outside the agent), not ${external ? 'both' : 'neither'}.`)
  const schema = isZod ? input : validatorOf(name, input)
  const input_schema = { ...(isZod ? z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown> : input) }
  delete input_schema.$schema
  // The definition's functions receive what `input` validates; the map is keyed by name, not by type.
  return {
    ...(definition as Omit<ToolDefinition<z.ZodType>, 'input'>),
    input: schema,
    concurrencySafe: definition.concurrencySafe ?? false,
    external,
    spec: { name, description, input_schema },
  }
}

const isJsonSchemaObject = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && (value as JsonSchema).type === 'object'

/** The zod validator of a JSON Schema; a schema zod cannot read is refused here, not at the first call. */
const validatorOf = (name: string, schema: JsonSchema): z.ZodType => {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])
  } catch (error) {
    throw new AgentError('INVALID_OPTION', `defineTool("${name}"): its JSON Schema cannot be used to validate arguments (${(error as Error).message}).`)
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

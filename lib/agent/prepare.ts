// Readying one reply: admits its input (schema, then the pure guards, before anything is appended),
// offers the caller's tools, and picks the structured output the reply asks for (the agent's, the
// reply's, or the one its USER_MESSAGE recorded when it resumes); `typedOutput` parses the value back.
import type { z } from 'zod'
import type { AgentDeps } from '../../effects/deps.js'
import { checkInput } from '../../reducers/guards.js'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { Msg } from '../core/messages.js'
import type { Store } from '../core/store.js'
import type { AgentInput } from './agentOptions.js'
import { admitInput, checkReplyOptions, inputMetadata } from './options.js'
import type { ReplyOptions } from './replyOptions.js'
import { checkOutputSchema, recordedOutputSchema, STRUCTURED_OUTPUT_TOOL, toolsForOutput } from './structuredOutput.js'
import { callerTool, type Tool } from './tools.js'
import { refuseLinks, treeLinksOf } from './treeLinks.js'

export class ReplyPreparation {
  private callerToolNames: string[] = []
  /** The structured output of the reply in progress (or the last). */
  private replyOutput: z.ZodType | null = null

  /** `tools` are the agent's own, then the current reply's caller tools; `output` the agent's default structured output. */
  constructor(private readonly deps: AgentDeps, private readonly tools: Map<string, Tool>, private readonly output: z.ZodType | null, private readonly store: () => Store) {
    this.useOutput(output)
  }

  /**
   * Admits input and readies what the reply offers the model (the caller's tools, the structured
   * output); returns the event to dispatch, or null for a no-op.
   */
  prepare(input: AgentInput, options: ReplyOptions): AgentEvent | null {
    checkReplyOptions(options)
    if (options.output !== undefined) checkOutputSchema(options.output, 'reply')
    const callerTools = options.externalTools?.map(callerTool)
    const event = this.admit(input)
    const links = treeLinksOf(options)
    if (event && !links?.trusted) refuseLinks(event)
    if (options.signal?.aborted) throw new AgentError('INVALID_OPTION', 'The signal passed to the reply is already aborted; nothing was started.')
    if (callerTools) this.offerCallerTools(callerTools)
    if (event?.type === 'USER_MESSAGE') this.useOutput(options.output ?? this.output)
    else if (event) this.useOutput(this.resumedOutput())
    const metadata = inputMetadata(options)
    if (event && metadata) Object.assign(event.metadata, JSON.parse(JSON.stringify(metadata)))
    if (event?.type === 'USER_MESSAGE' && links?.parent) event.metadata.parent = { ...links.parent }
    // The output schema the reply asks for, so that a process that resumes it asks for the same value.
    if (event?.type === 'USER_MESSAGE' && this.deps.outputSchema) event.metadata.output_schema = this.deps.outputSchema
    return event
  }

  /**
   * The structured output of the reply an input resumes: the schema its USER_MESSAGE recorded, as
   * this process gave it when it started the reply (a zod schema says more than its JSON Schema),
   * or rebuilt from the record in a process that did not; none when none was recorded.
   */
  private resumedOutput(): z.ZodType | null {
    const recorded = this.store().peek((state) => (state.loop?.output_schema ? JSON.stringify(state.loop.output_schema) : null))
    if (recorded === null) return null
    if (this.replyOutput && JSON.stringify(this.deps.outputSchema) === recorded) return this.replyOutput
    return recordedOutputSchema(JSON.parse(recorded) as Record<string, unknown>)
  }

  /** The message with its structured output (the output tool's arguments) parsed by this process's schema, so that its defaults and transforms apply. */
  typedOutput(msg: Msg): Msg {
    if (!msg.structured_output || !this.replyOutput) return msg
    try {
      const parsed = this.replyOutput.safeParse(msg.structured_output)
      return parsed.success ? { ...msg, structured_output: parsed.data as Record<string, unknown> } : msg
    } catch {
      return msg
    }
  }

  /** Replaces the caller's tools of the previous reply with these (the agent's own tools keep their names). */
  private offerCallerTools(callerTools: Tool[]): void {
    for (const name of this.callerToolNames) this.tools.delete(name)
    this.callerToolNames = callerTools.filter((t) => !this.tools.has(t.name)).map((t) => t.name)
    for (const tool of callerTools) if (!this.tools.has(tool.name)) this.tools.set(tool.name, tool)
  }

  /** The tools and the structured output of the reply about to start or go on. */
  private useOutput(schema: z.ZodType | null): void {
    this.replyOutput = schema
    this.deps.tools = toolsForOutput(this.tools, schema)
    this.deps.output = schema ? STRUCTURED_OUTPUT_TOOL : null
    // What the USER_MESSAGE records: the output tool's input schema, as the model is shown it.
    this.deps.outputSchema = schema ? this.deps.tools.get(STRUCTURED_OUTPUT_TOOL)!.spec.input_schema as Record<string, unknown> : null
  }

  /** Validates input and checks it against the state; returns the event to dispatch, or null for a no-op. */
  private admit(input: AgentInput): AgentEvent | null {
    if (this.store().failure) throw this.store().failure
    const event = admitInput(input, this.deps.clock)
    const verdict = checkInput(this.store().getState(), event)
    if (verdict instanceof AgentError) throw verdict
    return verdict === 'noop' ? null : event
  }
}

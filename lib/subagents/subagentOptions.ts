// A sub-agent's options, checked before its session is made: whatever createAgent would refuse
// (an empty name, a model that is not one, duplicate tools, maxIters 0, a bad output schema, ...)
// is the call's `error` result, and no session or lease is taken for a sub-agent that cannot start.
import { checkAgentOptions } from '../agent/options.js'
import { compactionSettings } from '../agent/compaction.js'
import { runtimeHintSettings } from '../agent/hints.js'
import { checkOutputSchema } from '../agent/structuredOutput.js'
import { AgentError, messageOf } from '../core/errors.js'

/** Throws INVALID_OPTION naming the agent tool when createAgent would refuse `options`. */
export const checkSubagentOptions = (toolName: string, options: unknown): void => {
  try {
    checkAgentOptions(options)
    const o = options as { output?: unknown; compaction?: unknown; runtimeHints?: unknown }
    if (o.output !== undefined) checkOutputSchema(o.output, 'createAgent')
    compactionSettings(o.compaction)
    runtimeHintSettings(o.runtimeHints)
  } catch (error) {
    throw new AgentError('INVALID_OPTION', `agentTool("${toolName}"): its agent() gave options the sub-agent cannot start with: ${messageOf(error)}`)
  }
}

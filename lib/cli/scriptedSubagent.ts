// The demo's sub-agent for `serve --scripted` and `chat --scripted`: a `research` tool whose call
// runs a scripted Researcher agent (its own session and log) that streams a short report into the
// call's result, slowly enough to watch and to stop. The scripted lead calls it with
// `callResearch(id, task)`; stopping the lead stops the Researcher first.
import { agentTool } from '../subagents/agentTool.js'
import { callTool, say, scriptedModel, think } from '../models/scripted.js'
import type { Tool } from '../agent/tools.js'

const REPORT = 'Findings: the log of every agent in a tree is its own session, linked to the call that ran it. Stopping the lead stops this sub-agent first, and its log stays consistent.'

export const scriptedResearcher = (): Tool => agentTool({
  name: 'research', description: 'Hands a research task to a sub-agent, which reports back',
  agent: ({ task }) => ({
    name: 'Researcher', sysPrompt: 'You research a task and report briefly.',
    model: scriptedModel([[...think(`Researching: ${task}`, 2), ...say(REPORT, 24)]], { chunkDelayMs: 60, onExhausted: 'repeat-last', name: 'scripted' }),
  }),
})

/** The scripted lead's chunks that call the research sub-agent. */
export const callResearch = (id: string, task: string) => callTool(id, 'research', { task })

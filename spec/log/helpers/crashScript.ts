// The crash child's script: replies of a thinking + text + two concurrent streaming tool calls
// round, then a streamed answer; chunks 2 ms apart and tools streaming 4 ms apart, so a random
// kill lands inside model streams, tool runs and between replies alike.
import { callTool, say, scriptedModel, think, usage, type ScriptedTurn } from '../../../lib/index.js'
import { echoTool } from './agents.js'

export const crashModel = (replies = 5000) => {
  const turns: ScriptedTurn[] = []
  for (let i = 0; i < replies; i++) {
    turns.push([...think('Two lookups.', 2), ...say('Looking.', 2), ...callTool(`a${i}`, 'echo', { text: `alpha-${i}` }, 2), ...callTool(`b${i}`, 'echo', { text: `beta-${i}` }, 2), usage(10, 5)])
    turns.push([...say(`Both answered for task ${i}.`, 6), usage(20, 6)])
  }
  return scriptedModel(turns, { chunkDelayMs: 2 })
}

export const crashTools = () => [echoTool(4)]

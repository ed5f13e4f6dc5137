// The module `agentlog serve --agent FILE` loads. It exports `agent`: the options of a session's
// agent (createAgent's options without `log` and `session_id`, which the store gives), or a function
// of the session id returning them, as createHub's `agent` takes; `export default` works the same.
//   npx agentlog serve --agent ./agent.ts     (then open http://127.0.0.1:8787/)
// A .ts module needs tsx in its project (npm install --save-dev tsx); a .js or .mjs module needs nothing.
// expect: exports agent(session_id)
import { pathToFileURL } from 'node:url'
import { agentTool, callTool, defineTool, say, scriptedModel, type AgentOptions } from 'agentlog'
import { z } from 'zod'

// A tool that asks before it runs: the page shows Approve, Deny and Edit.
const deleteFile = defineTool({
  name: 'delete_file', description: 'Deletes a file', input: z.object({ path: z.string() }),
  permission: 'ask',
  execute: ({ path }) => `deleted ${path} (not really: an example)`,
})

// A sub-agent: its call runs another agent in a session of its own. It streams slowly, so you can Stop it.
const research = agentTool({
  name: 'research', description: 'Researches a question and reports back',
  agent: ({ task }) => ({
    name: 'Researcher',
    model: scriptedModel([say(`Notes on ${task}: a long report, streamed word by word so that you have time to press Stop.`, 30)], { chunkDelayMs: 150 }),
  }),
})

export const agent = (session_id: string): Omit<AgentOptions, 'log' | 'session_id'> => ({
  name: 'Friday', sysPrompt: `You are helpful (session ${session_id}).`, tools: [deleteFile, research],
  model: scriptedModel([
    [...say('I will delete it; approve it first.'), ...callTool('call-1', 'delete_file', { path: '/tmp/a.txt' })],
    [...say('Done. Now I ask a researcher.'), ...callTool('call-2', 'research', { task: 'Paris' })],
    [...say('That is all I had to show.')],
  ], { onExhausted: 'repeat-last' }),
})

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  console.log(`This module exports agent(session_id), e.g. ${agent('demo').name}: serve it with npx agentlog serve --agent ${process.argv[1]}`)

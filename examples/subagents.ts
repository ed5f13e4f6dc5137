// Sub-agents: `agentTool` turns an agent into a tool another agent calls. Each call runs the
// sub-agent in a session and log of its own, linked to the call in both logs. Stopping the lead
// stops the whole tree; a sub-agent's approval parks the lead and is answered from the top.
// Run: npx tsx examples/subagents.ts
// expect: [Researcher] Paris has 2.1 million inhabitants.
// expect: lead: Paris has about 2.1 million inhabitants.
// expect: waiting for save_note in the Researcher's session: true
// expect: after approval: Saved.
// expect: every log ends: Researcher interrupted, Lead interrupted
import { agentTool, createAgent, defineTool, scriptedModel, say, callTool, type AgentEvent } from 'agentlog'
import { z } from 'zod'

const saveNote = defineTool({
  name: 'save_note', description: 'Saves a note', input: z.object({ text: z.string() }), permission: 'ask',
  execute: ({ text }) => `saved "${text}"`,
})

// The sub-agent's scripted answers, by task (a real model would read the task).
const scripts: Record<string, Parameters<typeof scriptedModel>[0]> = {
  'How many people live in Paris?': [[...say('Paris has 2.1 million inhabitants.', 4)]],
  'Save a note': [[...callTool('n1', 'save_note', { text: 'population' })], [...say('Noted.')]],
  'Read everything': [[...say('Reading a long source ', 50)]],
}

const researcher = agentTool({
  name: 'research', description: 'Researches a question and reports back',
  // AgentOptions, or (input, context) => AgentOptions; input is { task } unless you give a schema.
  agent: ({ task }) => ({
    name: 'Researcher', sysPrompt: 'You research questions.', tools: [saveNote],
    model: scriptedModel(scripts[task], { chunkDelayMs: 1 }),
  }),
})

const lead = createAgent({
  name: 'Lead', tools: [researcher],
  model: scriptedModel([
    [...callTool('c1', 'research', { task: 'How many people live in Paris?' })], [...say('Paris has about 2.1 million inhabitants.')],
    [...callTool('c2', 'research', { task: 'Save a note' })], [...say('Saved.')],
    [...callTool('c3', 'research', { task: 'Read everything' })],
  ]),
})

// 1. Delegate. With { descendants: true } the sub-agent's own events come too, tagged with its session.
for await (const e of lead.replyStream('How many people live in Paris?', { descendants: true })) {
  if (e.type === 'REPLY_END' && e.metadata.session_id) {
    const [child] = lead.children()   // the sub-agents this agent ran, each an Agent with its own log
    console.log(`[${child.name}] ${child.state.context.at(-1)!.content.map((b) => (b.type === 'text' ? b.text : '')).join('')}`)
  }
}
console.log(`lead: ${lead.state.context.at(-1)!.content.filter((b) => b.type === 'text').map((b) => b.text).join('')}`)

// 2. A sub-agent's approval parks the lead; the lead's waiting_for names the sub-agent's call and session.
const paused = await lead.reply('Save a note about it')
const [call] = paused.waiting_for
const owner = lead.children().find((c) => c.session_id === call.session_id)!
console.log(`waiting for ${call.name} in the ${owner.name}'s session: ${owner.state.status === 'paused'}`)
const done = await lead.approve(call)   // answered where it waits; the sub-agent, then the lead go on
console.log(`after approval: ${done.text}`)

// 3. Stop the lead while its sub-agent streams: the whole tree stops, the deepest log first.
const ends: string[] = []
const record = (name: string) => (e: AgentEvent) => e.type === 'REPLY_END' && ends.push(`${name} ${e.finished_reason}`)
lead.events$.subscribe(record('Lead'))
for await (const e of lead.replyStream('Read everything', { descendants: true })) {
  if (e.type === 'REPLY_START' && e.metadata.session_id) lead.children().at(-1)!.events$.subscribe(record('Researcher'))
  if (e.type === 'TEXT_BLOCK_DELTA' && e.metadata.session_id) break   // leaving the loop stops the reply, and its sub-agents
}
console.log(`every log ends: ${ends.join(', ')}`)
